package dev.entangle.cli;

import dev.entangle.rules.LemmaLibrary;
import dev.entangle.util.InputException;
import java.nio.file.Path;
import java.util.List;

/**
 * The lemmas of a check, read and compiled on a thread of their own. The shipped folder's can be
 * started from the beginning of the run, while picocli builds the command line ({@link
 * #startShipped}); {@link #loading} hands that work on when the check needs the same folder and no
 * {@code --lemmas} folder besides, and starts the whole load otherwise. Either way a check sees the
 * same lemmas and the same errors, when it joins. The lemmas of {@code --lemmas} folders are
 * checked on numbers as they load ({@link LoadedLemmas}).
 */
final class CheckLemmas {
  private static Background<LoadedLemmas> started;
  private static Path startedDir;

  private CheckLemmas() {}

  /**
   * Starts reading the shipped lemma folder for this run; without a lemma folder it starts nothing,
   * and the check reports that when it loads its lemmas.
   */
  static synchronized void startShipped() {
    started = null;
    startedDir = null;
    Path dir;
    try {
      dir = LemmaPaths.defaultDir();
    } catch (InputException e) {
      return;
    }
    startedDir = dir;
    started =
        Background.start(
            "entangle-lemmas", () -> LoadedLemmas.shipped(LemmaLibrary.load(List.of(dir))));
  }

  /**
   * The loading of the shipped lemmas, then those of every folder of {@code extra}: the one {@link
   * #startShipped} began in this run when it fits, else a new one.
   */
  static synchronized Background<LoadedLemmas> loading(List<Path> extra) {
    Background<LoadedLemmas> early = started;
    Path earlyDir = startedDir;
    started = null;
    startedDir = null;
    // when early is set, this run found the lemma folder moments ago: asking again finds it again
    if (early != null && extra.isEmpty() && earlyDir.equals(LemmaPaths.defaultDir())) {
      return early;
    }
    return Background.start(
        "entangle-lemmas", () -> LoadedLemmas.load(LemmaPaths.defaultDir(), extra));
  }
}
