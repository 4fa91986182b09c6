package dev.entangle.rules;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.AnalysisConflict;
import dev.entangle.egraph.Rewrite;
import dev.entangle.egraph.RunReport;
import dev.entangle.egraph.Runner;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every shipped lemma against the cases in {@code src/test/resources/lemma-cases}: each positive
 * case is proved by the whole library with its named lemma firing, no negative case is proved, and
 * no lemma is without a positive case.
 */
class ShippedLemmasTest {
  private static final Lemmas SATURATION = (ShippedLemmas.LEMMAS);

  @TestFactory
  Stream<DynamicTest> positiveCasesAreProvedByTheirLemma() {
    return ShippedLemmas.CASES.stream()
        .filter(LemmaCase::positive)
        .map(c -> DynamicTest.dynamicTest(c.where() + " " + c, () -> provePositive(c)));
  }

  @TestFactory
  Stream<DynamicTest> negativeCasesAreNotProved() {
    return ShippedLemmas.CASES.stream()
        .filter(c -> !c.positive())
        .map(c -> DynamicTest.dynamicTest(c.where() + " " + c, () -> refuteNegative(c)));
  }

  @Test
  void everyShippedLemmaHasAPositiveCase() {
    Set<String> covered = new LinkedHashSet<>();
    ShippedLemmas.CASES.stream().filter(LemmaCase::positive).forEach(c -> covered.add(c.lemma()));
    List<String> missing = new ArrayList<>();
    for (String name : ShippedLemmas.LEMMAS.names()) {
      if (!covered.contains(name)) {
        missing.add(name);
      }
    }
    assertTrue(
        missing.isEmpty(),
        "lemmas without a positive case in src/test/resources/lemma-cases: " + missing);
  }

  @Test
  void everyCaseNamesAShippedLemma() {
    List<String> names = ShippedLemmas.LEMMAS.names();
    List<String> unknown =
        ShippedLemmas.CASES.stream()
            .filter(c -> !names.contains(c.lemma()))
            .map(c -> c.where() + " " + c.lemma())
            .toList();
    assertTrue(unknown.isEmpty(), "cases naming no shipped lemma: " + unknown);
  }

  @Test
  void theLibraryShipsRulesAndNativeLemmas() {
    assertFalse(ShippedLemmas.LEMMAS.rules().isEmpty());
    assertTrue(ShippedLemmas.LEMMAS.names().contains(SliceTiling.NAME));
  }

  /**
   * Bug in lemmas/40-reductions.lemmas, slice-last-dims: the rule has no condition that the sliced
   * dim lies before the last k dims the operator works over, so slicing a normalized dim is equated
   * with normalizing a slice. It is an :if-exists rule, so it only strikes when both terms exist,
   * but then it is unsound: for x:f32[3,4], {@code (slice[1 0 2 1] (ln_normalize[1 eps] x))}
   * (columns 0..1 of rows normalized over 4 columns) is proved equal to {@code (ln_normalize[1 eps]
   * (slice[1 0 2 1] x))} (rows of 2 columns normalized over those 2), and {@code (ln_mean[1] x)}
   * equal to {@code (ln_mean[1] (slice[1 0 1 1] x))}. Expected: not equal. Actual: equal. Fix: add
   * {@code :when (< ?d (- (rank ?x) ?k))}.
   */
  @Test
  void sliceLastDimsDoesNotSliceANormalizedDim() {
    List<LemmaCase> cases =
        LemmaCase.parse(
            "slice-last-dims.bug",
            String.join(
                "\n",
                "slice-last-dims: (slice[1 0 2 1] (ln_normalize[1 1e-05] x:f32[3,4])) !=> (ln_normalize[1 1e-05] (slice[1 0 2 1] x))",
                "slice-last-dims: (slice[1 0 1 1] (ln_mean[1] x:f32[3,4])) !=> (ln_mean[1] (slice[1 0 1 1] x))"));
    cases.forEach(ShippedLemmasTest::refuteNegative);
  }

  /**
   * permute-permute composes two permutes unless one of them moves only dims of size 1: that one is
   * a reshape (permute-unit-dims), and composing it would put a permute of every placement of the
   * unit dims in the class (24 for four unit dims), which multiplied an expert-parallel layer's
   * e-graph tenfold. Run alone, the rule leaves such a pair as it is and composes any other.
   */
  @Test
  void permutePermuteLeavesPermutesOfUnitDimsToReshapes() {
    int at = SATURATION.names().indexOf("permute-permute");
    List<Rewrite<TypeInfo>> alone = List.of(SATURATION.rewrites().get(at));
    List<LemmaCase> cases =
        LemmaCase.parse(
            "permute-permute.alone",
            String.join(
                "\n",
                "permute-permute: (permute[1 0 2] (permute[0 2 1] x:f32[1,3,1])) !=> (permute[2 0 1] x)",
                "permute-permute: (permute[0 2 1] (permute[1 0 2] x:f32[1,3,4])) !=> (permute[1 2 0] x)",
                "permute-permute: (permute[0 2 1] (permute[1 0 2] x:f32[2,3,4])) => (permute[1 2 0] x)"));
    for (LemmaCase c : cases) {
      ShippedLemmas.Sides s = ShippedLemmas.build(c);
      Runner.run(s.graph(), alone, ShippedLemmas.limits(5), s::equal);
      assertTrue(s.equal() == c.positive(), c.where() + " " + c);
    }
  }

  /**
   * A positive case is proved with every shipped lemma, its own among those that fired; a decision
   * procedure's case ({@link dev.entangle.egraph.Searcher#wholeGraph}) with the procedure alone,
   * since with the others it waits until they have nothing left, and they may prove the case first.
   */
  private static void provePositive(LemmaCase c) {
    ShippedLemmas.Sides s = ShippedLemmas.build(c);
    RunReport r;
    int at = SATURATION.names().indexOf(c.lemma());
    List<Rewrite<TypeInfo>> rewrites = SATURATION.rewrites();
    if (at >= 0 && rewrites.get(at).searcher().wholeGraph()) {
      rewrites = List.of(rewrites.get(at));
    }
    try {
      r = Runner.run(s.graph(), rewrites, ShippedLemmas.limits(30), s::equal);
    } catch (AnalysisConflict e) {
      fail(c.where() + ": a lemma equated values of different types: " + e.getMessage());
      return;
    }
    assertTrue(
        s.equal(),
        c.where()
            + ": not proved; stopped with "
            + r.stopReason()
            + " after "
            + r.iterations()
            + " iterations, "
            + s.graph().nodeCount()
            + " nodes; fired "
            + fired(r));
    assertTrue(at >= 0, c.where() + ": no shipped lemma named " + c.lemma());
    int i = rewrites.size() == 1 ? 0 : at;
    assertTrue(
        r.applied()[i] > 0, c.where() + ": proved without " + c.lemma() + "; fired " + fired(r));
  }

  private static void refuteNegative(LemmaCase c) {
    ShippedLemmas.Sides s = ShippedLemmas.build(c);
    RunReport r;
    try {
      r = Runner.run(s.graph(), SATURATION.rewrites(), ShippedLemmas.limits(30), s::equal);
    } catch (AnalysisConflict e) {
      fail(c.where() + ": a lemma equated values of different types: " + e.getMessage());
      return;
    }
    assertFalse(s.equal(), c.where() + ": proved, but the sides differ; fired " + fired(r));
  }

  /** The lemmas that fired, with their counts, for failure messages. */
  static String fired(RunReport r) {
    StringBuilder sb = new StringBuilder("{");
    for (int i = 0; i < r.applied().length; i++) {
      if (r.applied()[i] > 0) {
        sb.append(sb.length() > 1 ? ", " : "")
            .append(r.names().get(i))
            .append('=')
            .append(r.applied()[i]);
      }
    }
    return sb.append('}').toString();
  }
}
