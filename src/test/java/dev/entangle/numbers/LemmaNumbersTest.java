package dev.entangle.numbers;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.Rewrite;
import dev.entangle.rules.LemmaCase;
import dev.entangle.rules.LemmaLibrary;
import dev.entangle.rules.Lemmas;
import dev.entangle.rules.RandomTerms;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every shipped lemma checked on numbers: applied alone to its cases' terms (the lemma-cases'
 * starts and goals) and to random terms at random small shapes, every equality it makes must hold
 * on random values.
 */
class LemmaNumbersTest {
  private static final Lemmas LEMMAS = LemmaLibrary.load(List.of(Path.of("lemmas")));
  private static final int RANDOM_SEEDS = 6;

  private static List<LemmaCase> cases() {
    try {
      return LemmaCase.load(Path.of(LemmaNumbersTest.class.getResource("/lemma-cases").toURI()));
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Random terms for one seed, three to a graph so lemmas meet. */
  static List<String> randomTerms(long seed) {
    RandomTerms gen = new RandomTerms(seed);
    List<String> out = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      out.add(gen.term(3));
    }
    return out;
  }

  @TestFactory
  Stream<DynamicTest> everyShippedLemmaHoldsOnNumbers() {
    List<LemmaCase> cases = cases();
    return LEMMAS.rewrites().stream()
        .map(r -> DynamicTest.dynamicTest(r.name(), () -> assertHolds(r, cases)));
  }

  private static void assertHolds(Rewrite<TypeInfo> lemma, List<LemmaCase> cases) {
    for (LemmaCase c : cases) {
      if (!c.lemma().equals(lemma.name()) || c.given() != null) {
        continue;
      }
      assertNoViolation(
          LemmaNumbers.check(lemma, List.of(c.left(), c.right()), c.where(), 1), lemma);
      assertNoViolation(
          LemmaNumbers.check(lemma, List.of(c.left(), c.right()), c.where(), 2), lemma);
    }
    for (int seed = 0; seed < RANDOM_SEEDS; seed++) {
      assertNoViolation(
          LemmaNumbers.check(lemma, randomTerms(seed), "random terms " + seed, seed), lemma);
    }
  }

  private static void assertNoViolation(LemmaNumbers.Result r, Rewrite<TypeInfo> lemma) {
    assertTrue(
        r.violations().isEmpty(), () -> lemma.name() + " is false on numbers: " + r.violations());
  }

  @Test
  void aFalseLemmaIsCaughtOnItsOwnTerms() {
    Lemmas wrong =
        LemmaLibrary.parse(
            Map.of(
                "wrong.lemmas",
                "; false: a slice of a concat is its first part's slice whatever the offset\n"
                    + "(rule wrong (slice[?d ?s ?e 1] (concat[?d] ?x ?y)) (slice[?d ?s ?e 1] ?x) :when (<= ?e (size ?x ?d)))\n"
                    + "; true: the same, but only inside the first part... with the offset shifted wrongly\n"
                    + "(rule shifted (slice[?d ?s ?e 1] (concat[?d] ?x ?y)) (slice[?d (+ ?s 1) (+ ?e 1) 1] ?x)"
                    + " :when (< ?e (size ?x ?d)))\n"));
    LemmaNumbers.Result first =
        LemmaNumbers.check(
            wrong.rewrites().get(0),
            List.of("(slice[0 0 2 1] (concat[0] a:f32[3,2] b:f32[2,2]))"),
            "t",
            1);
    assertTrue(first.violations().isEmpty(), "this instance is true: " + first.violations());
    LemmaNumbers.Result shifted =
        LemmaNumbers.check(
            wrong.rewrites().get(1),
            List.of("(slice[0 0 2 1] (concat[0] a:f32[3,2] b:f32[2,2]))"),
            "t",
            1);
    assertTrue(shifted.applied() > 0, "the lemma applies");
    assertFalse(shifted.violations().isEmpty(), "the shifted slice is another value");
  }
}
