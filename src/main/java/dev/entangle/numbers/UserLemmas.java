package dev.entangle.numbers;

import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.AnalysisConflict;
import dev.entangle.egraph.Rewrite;
import dev.entangle.rules.LemmaCase;
import dev.entangle.rules.Lemmas;
import dev.entangle.rules.Rule;
import dev.entangle.util.InputException;
import dev.entangle.util.Names;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The lemmas of the user's own folders ({@code --lemmas}), checked on numbers before a check trusts
 * them, as {@code entangle lemmas check} does: a false one is refused, naming its file, line and a
 * counter-example; one the numbers never exercised is kept and said to be untested. The shipped
 * lemmas are not checked here: their cases are checked in the project's tests.
 *
 * @param user every lemma written in a user folder, in load order
 * @param untested those of {@link #user} that no term tried on numbers applied
 */
public record UserLemmas(List<Lemma> user, List<Lemma> untested) {
  /** The seed of the terms and values a user lemma is checked on at load time. */
  public static final long SEED = 1;

  /** No user lemma. */
  public static final UserLemmas NONE = new UserLemmas(List.of(), List.of());

  public UserLemmas {
    user = List.copyOf(user);
    untested = List.copyOf(untested);
  }

  /**
   * A lemma of the user's.
   *
   * @param name its name
   * @param location where it is written, as {@code file:line}
   */
  public record Lemma(String name, String location) {
    @Override
    public String toString() {
      return "'" + Names.shorten(name) + "' (" + Names.shorten(location) + ")";
    }
  }

  /**
   * Checks the rules of {@code lemmas} written in {@code userDirs}.
   *
   * @param cases the cases of the user folders' {@code *.cases} files
   * @throws InputException for the first lemma the numbers refute
   */
  public static UserLemmas check(Lemmas lemmas, List<Path> userDirs, List<LemmaCase> cases) {
    if (userDirs.isEmpty()) {
      return NONE;
    }
    Set<Path> dirs = new HashSet<>();
    for (Path d : userDirs) {
      dirs.add(d.toAbsolutePath().normalize());
    }
    List<Lemma> user = new ArrayList<>();
    List<Lemma> untested = new ArrayList<>();
    for (Rule r : lemmas.rules()) {
      Path parent = Path.of(r.file()).toAbsolutePath().normalize().getParent();
      if (!dirs.contains(parent)) {
        continue;
      }
      Lemma lemma = new Lemma(r.name(), r.location());
      user.add(lemma);
      LemmaCheck.Outcome o = LemmaCheck.checkOne(rewrite(lemmas, r.name()), cases, SEED);
      if (!o.holds()) {
        throw new InputException(falseLemma(r, o.violations().get(0)));
      }
      if (o.applied() == 0) {
        untested.add(lemma);
      }
    }
    return new UserLemmas(user, untested);
  }

  /** The user lemmas among {@code applications}' keys (how often each lemma fired, by name). */
  public List<Lemma> used(Map<String, Integer> applications) {
    return user.stream().filter(l -> applications.getOrDefault(l.name(), 0) > 0).toList();
  }

  /** Whether an untested lemma fired in {@code applications}. */
  public boolean usedUntested(Map<String, Integer> applications) {
    return untested.stream().anyMatch(l -> applications.getOrDefault(l.name(), 0) > 0);
  }

  /** The warning printed for the untested lemmas, or null when every one was exercised. */
  public String untestedWarning() {
    if (untested.isEmpty()) {
      return null;
    }
    return "warning: the lemma"
        + (untested.size() == 1 ? " " : "s ")
        + String.join(", ", untested.stream().map(Lemma::toString).toList())
        + (untested.size() == 1 ? " was" : " were")
        + " never applied to the terms tried on numbers, so "
        + (untested.size() == 1 ? "it is" : "they are")
        + " not checked: a 'refines' that uses "
        + (untested.size() == 1 ? "it" : "one")
        + " is certified on numbers. Add cases that name "
        + (untested.size() == 1 ? "it" : "them")
        + " to a *.cases file in the lemma folder (see 'entangle lemmas check').";
  }

  /**
   * The input error for a check that equated values of different types ({@code conflict}'s message
   * says which) while user lemmas were loaded: the shipped lemmas keep types, so one of the user's
   * is wrong. Null when no user lemma was loaded (then it is a bug in entangle).
   */
  public InputException blame(AnalysisConflict conflict) {
    if (user.isEmpty()) {
      return null;
    }
    List<Lemma> suspects = untested.isEmpty() ? user : untested;
    return new InputException(
        "a lemma of yours made two values of different types equal ("
            + Names.shorten(conflict.getMessage())
            + "); "
            + (suspects.size() == 1 ? "the lemma " : "one of the lemmas ")
            + String.join(", ", suspects.stream().map(Lemma::toString).toList())
            + " is"
            + " wrong. Fix or remove it, and add cases that name it to a *.cases file next to it"
            + " so that 'entangle lemmas check' exercises it.",
        conflict);
  }

  private static Rewrite<TypeInfo> rewrite(Lemmas lemmas, String name) {
    for (Rewrite<TypeInfo> w : lemmas.rewrites()) {
      if (w.name().equals(name)) {
        return w;
      }
    }
    throw new IllegalStateException("no rewrite for lemma " + name);
  }

  private static String falseLemma(Rule r, LemmaNumbers.Violation v) {
    return Names.shorten(r.location())
        + ": the lemma '"
        + Names.shorten(r.name())
        + "' is false on numbers: on "
        + v.where()
        + " it makes "
        + Names.shorten(v.node())
        + " equal to "
        + Names.shorten(v.term())
        + ", but "
        + (v.difference() == null ? "their types differ" : "they differ " + v.difference())
        + ". Fix or remove the lemma (check a folder with 'entangle lemmas check DIR') and run"
        + " again.";
  }
}
