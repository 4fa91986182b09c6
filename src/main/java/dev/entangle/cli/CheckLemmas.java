package dev.entangle.cli;

import dev.entangle.rules.LemmaLibrary;
import dev.entangle.rules.Lemmas;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The lemmas of a check. The shipped folder's can be read and compiled from the start of the run,
 * on a thread of their own, while picocli builds the command line: {@link #startShipped} begins
 * that, and {@link #load} takes the result when the shipped folder is the one the check needs and
 * no {@code --lemmas} folder is added. Otherwise (or when nothing was started) it loads them then.
 * Either way a check sees the same lemmas and the same errors.
 */
final class CheckLemmas {
  private record Shipped(Path dir, Lemmas lemmas) {}

  private static Background<Shipped> started;

  private CheckLemmas() {}

  /** Starts reading the shipped lemma folder, unless that is already under way. */
  static synchronized void startShipped() {
    if (started == null) {
      started =
          Background.start(
              "entangle-lemmas",
              () -> {
                Path dir = LemmaPaths.defaultDir();
                return new Shipped(dir, LemmaLibrary.load(List.of(dir)));
              });
    }
  }

  /** The shipped lemmas, then those of every folder of {@code extra}. */
  static Lemmas load(List<Path> extra) {
    Background<Shipped> early = take();
    Path shipped = LemmaPaths.defaultDir();
    if (extra.isEmpty() && early != null) {
      Shipped s = early.join();
      if (s.dir().equals(shipped)) {
        return s.lemmas();
      }
    }
    List<Path> dirs = new ArrayList<>();
    dirs.add(shipped);
    dirs.addAll(extra);
    return LemmaLibrary.load(dirs);
  }

  private static synchronized Background<Shipped> take() {
    Background<Shipped> early = started;
    started = null;
    return early;
  }
}
