package dev.entangle.numbers;

import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.Rewrite;
import dev.entangle.rules.LemmaCase;
import dev.entangle.rules.Lemmas;
import dev.entangle.rules.RandomTerms;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks every lemma of a library on numbers ({@link LemmaNumbers}): each applied alone to the
 * terms of the cases that name it and to random terms of small random shapes.
 */
public final class LemmaCheck {
  /** Random term sets each lemma meets. */
  public static final int RANDOM_SETS = 6;

  /**
   * What the numbers say of one lemma.
   *
   * @param lemma its name
   * @param applied how often it merged classes over every term set
   * @param cases how many cases named it
   * @param violations the equalities it made that numbers refute
   */
  public record Outcome(
      String lemma, int applied, int cases, List<LemmaNumbers.Violation> violations) {
    public boolean holds() {
      return violations.isEmpty();
    }
  }

  private LemmaCheck() {}

  /** Checks each lemma of {@code lemmas}; {@code seed} draws the random terms and values. */
  public static List<Outcome> check(Lemmas lemmas, List<LemmaCase> cases, long seed) {
    List<Outcome> out = new ArrayList<>();
    for (Rewrite<TypeInfo> lemma : lemmas.rewrites()) {
      out.add(checkOne(lemma, cases, seed));
    }
    return out;
  }

  /**
   * Checks one lemma, alone, on the terms of the cases that name it and on {@link #RANDOM_SETS}
   * sets of random terms.
   */
  public static Outcome checkOne(Rewrite<TypeInfo> lemma, List<LemmaCase> cases, long seed) {
    int applied = 0;
    int named = 0;
    List<LemmaNumbers.Violation> violations = new ArrayList<>();
    for (LemmaCase c : cases) {
      if (!c.lemma().equals(lemma.name()) || c.given() != null) {
        continue;
      }
      named++;
      LemmaNumbers.Result r =
          LemmaNumbers.check(lemma, List.of(c.left(), c.right()), c.where(), seed);
      applied += r.applied();
      violations.addAll(r.violations());
    }
    for (int k = 0; k < RANDOM_SETS; k++) {
      RandomTerms gen = new RandomTerms(seed * 1000 + k);
      List<String> terms = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        terms.add(gen.term(3));
      }
      LemmaNumbers.Result r =
          LemmaNumbers.check(
              lemma, terms, "random terms (seed " + (seed * 1000 + k) + ")", seed + k);
      applied += r.applied();
      violations.addAll(r.violations());
    }
    return new Outcome(lemma.name(), applied, named, violations);
  }
}
