package dev.entangle.cli;

import dev.entangle.numbers.UserLemmas;
import dev.entangle.rules.LemmaCase;
import dev.entangle.rules.LemmaLibrary;
import dev.entangle.rules.Lemmas;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The lemmas of a run: the shipped folder's and those of every {@code --lemmas} folder, the latter
 * checked on numbers before they are trusted ({@link UserLemmas}).
 *
 * @param lemmas every lemma
 * @param user the user's lemmas and which of them the numbers could not exercise
 */
record LoadedLemmas(Lemmas lemmas, UserLemmas user) {
  /** Loads the shipped folder, then {@code extra}; a false user lemma is an input error. */
  static LoadedLemmas load(Path shipped, List<Path> extra) {
    List<Path> dirs = new ArrayList<>();
    dirs.add(shipped);
    dirs.addAll(extra);
    Lemmas lemmas = LemmaLibrary.load(dirs);
    return new LoadedLemmas(lemmas, checkUser(lemmas, extra));
  }

  /** The shipped lemmas alone: trusted, their cases being checked by the project's tests. */
  static LoadedLemmas shipped(Lemmas lemmas) {
    return new LoadedLemmas(lemmas, UserLemmas.NONE);
  }

  private static UserLemmas checkUser(Lemmas lemmas, List<Path> extra) {
    if (extra.isEmpty()) {
      return UserLemmas.NONE;
    }
    List<LemmaCase> cases = new ArrayList<>();
    for (Path dir : extra) {
      cases.addAll(LemmaCase.readChecked(dir));
    }
    return UserLemmas.check(lemmas, extra, cases);
  }
}
