package dev.entangle.rules;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.entangle.egraph.AnalysisConflict;
import dev.entangle.egraph.Runner;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * No shipped lemma equates values of different shapes: the type analysis raises {@link
 * AnalysisConflict} when one does, which is how an unsound lemma usually shows. Every case of the
 * lemma-case files, and random terms, are run through the whole library to saturation or a limit.
 */
class ShapeConsistencyTest {
  private static final Lemmas SATURATION = (ShippedLemmas.LEMMAS);
  private static final int RANDOM_GRAPHS = 60;

  /**
   * Lemmas with a known shape bug, each with a disabled test below; random terms run without them
   * so that this test guards every other lemma. Empty this set when they are fixed.
   */
  private static final Set<String> KNOWN_CONFLICTS = Set.of();

  private static final Lemmas WITHOUT_KNOWN_CONFLICTS =
      (new Lemmas(
          ShippedLemmas.LEMMAS.rules().stream()
              .filter(r -> !KNOWN_CONFLICTS.contains(r.name()))
              .toList(),
          ShippedLemmas.LEMMAS.natives()));

  @TestFactory
  Stream<DynamicTest> noCaseRaisesAShapeConflict() {
    return ShippedLemmas.CASES.stream()
        .map(
            c ->
                DynamicTest.dynamicTest(
                    c.where() + " " + c,
                    () -> {
                      ShippedLemmas.Sides s = ShippedLemmas.build(c);
                      saturate(s.terms(), c.where() + " " + c, 30);
                    }));
  }

  @TestFactory
  Stream<DynamicTest> noRandomTermRaisesAShapeConflict() {
    return IntStream.range(0, RANDOM_GRAPHS)
        .mapToObj(
            seed ->
                DynamicTest.dynamicTest(
                    "seed " + seed, () -> randomGraph(seed, WITHOUT_KNOWN_CONFLICTS)));
  }

  @Test
  void lemmasSkippedForKnownConflictsAreShipped() {
    assertTrue(
        ShippedLemmas.LEMMAS.names().containsAll(KNOWN_CONFLICTS), KNOWN_CONFLICTS.toString());
  }

  /** The random terms again with every shipped lemma; fails while expand-concat is unsound. */
  @Test
  void noRandomTermRaisesAShapeConflictWithEveryLemma() {
    for (int seed = 0; seed < RANDOM_GRAPHS; seed++) {
      randomGraph(seed, SATURATION);
    }
  }

  private static void randomGraph(int seed, Lemmas saturation) {
    RandomTerms gen = new RandomTerms(seed);
    TermReader t = new TermReader();
    List<String> terms = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      String term = gen.term(3);
      terms.add(term);
      t.add(term);
    }
    saturate(saturation, t, "seed " + seed + ": " + String.join("  ", terms), 8);
  }

  @Test
  void randomTermsAreWellTypedAndVaried() {
    RandomTerms gen = new RandomTerms(1);
    TermReader t = new TermReader();
    StringBuilder all = new StringBuilder();
    for (int i = 0; i < 40; i++) {
      String term = gen.term(3);
      assertDoesNotThrow(() -> t.add(term), term);
      all.append(term).append('\n');
    }
    for (String op :
        List.of("(concat[", "(slice[", "(reshape[", "(permute[", "(matmul ", "(expand[")) {
      assertTrue(all.toString().contains(op), "no " + op + " in\n" + all);
    }
  }

  /**
   * Bug in lemmas/10-layout.lemmas, expand-concat: the rule assumes the expand does not broadcast
   * along the concat dim, and its only condition (every part has a positive size there) does not
   * say so. A concat whose total size along that dim is 1 (a concat of one part, which
   * slice-concat-rest and the relation builder both produce) can be broadcast along it: for
   * a:f32[3,1], {@code (expand[3 5] (concat[1] a))} has shape [3,5], and the rule equates it with
   * {@code (concat[1] (expand[3 1] a))} of shape [3,1]. Expected: no rewrite. Actual:
   * AnalysisConflict "cannot equate a value of type float32[3, 5] with one of type float32[3, 1]".
   * Fix: add {@code (= (nth ?sh (+ ?d (- (len ?sh) (rank (head ?xs))))) (sum-size ?xs ?d))} to its
   * condition.
   */
  @Test
  void expandConcatLeavesABroadcastAlongTheConcatDimAlone() {
    TermReader t = new TermReader();
    t.add("(expand[3 5] (concat[1] a:f32[3,1]))");
    saturate(t, "(expand[3 5] (concat[1] a:f32[3,1]))", 10);
  }

  private static void saturate(TermReader t, String what, int iterations) {
    saturate(SATURATION, t, what, iterations);
  }

  private static void saturate(Lemmas saturation, TermReader t, String what, int iterations) {
    try {
      Runner.run(t.graph(), saturation.rewrites(), ShippedLemmas.limits(iterations), () -> false);
    } catch (AnalysisConflict e) {
      fail(what + "\n  a lemma equated values of different types: " + e.getMessage());
    }
  }
}
