package dev.entangle.rules.linear;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.Runner;
import dev.entangle.numbers.LemmaNumbers;
import dev.entangle.rules.TermReader;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Named laws of the linear fragment, and what it must never merge. */
class LinearFormsTest {
  private static final List<String> DECLARE =
      List.of(
          "a0:f32[2,3]",
          "a1:f32[2,3]",
          "b0:f32[2,3]",
          "b1:f32[2,3]",
          "g:f32[2,3]",
          "m0:f32[2,3]",
          "m1:f32[2,3]",
          "f0:f32[2,3]",
          "f1:f32[2,3]",
          "x0:f32[4,2]",
          "x1:f32[4,2]",
          "w:f32[2,3]",
          "b:f32[2,3]");

  private static final String TWO = "(expand[2 3] (scalar[2.0 f32]))";
  private static final String HALF = "(expand[2 3] (scalar[0.5 f32]))";

  static boolean proves(String left, String right) {
    boolean equal = LinearLawMatrixTest.proved(DECLARE, left, right);
    LemmaNumbers.Result r =
        LemmaNumbers.check(new LinearForms().rewrite(), terms(left, right), left, 1);
    assertEquals(List.of(), r.violations());
    return equal;
  }

  private static List<String> terms(String left, String right) {
    List<String> all = new java.util.ArrayList<>(DECLARE);
    all.add(left);
    all.add(right);
    return all;
  }

  @Test
  void sumsAcrossRanksAddPartByPart() {
    assertTrue(proves("(add (sumn a0 a1) (sumn b0 b1))", "(sumn (add a0 b0) (add a1 b1))"));
  }

  @Test
  void aTermAddedOnOneRankIsCountedOnce() {
    assertTrue(proves("(add (sumn a0 a1) b)", "(sumn (add a0 b) a1)"));
    assertFalse(proves("(add (sumn a0 a1) b)", "(sumn (add a0 b) (add a1 b))"));
  }

  @Test
  void sharesOfAReplicatedValueSumToIt() {
    assertTrue(proves("(sumn (div b " + TWO + ") (div b " + TWO + "))", "b"));
    assertTrue(proves("(sumn (mul b " + HALF + ") (mul " + HALF + " b))", "b"));
  }

  @Test
  void aReplicatedFactorLeavesASum() {
    assertTrue(
        proves(
            "(sumn (mul (mul m0 g) f0) (mul (mul m1 g) f1))",
            "(mul g (sumn (mul m0 f0) (mul m1 f1)))"));
  }

  @Test
  void aCountCancelsItsDivision() {
    assertTrue(proves("(mul " + TWO + " (div (sumn a0 a1) " + TWO + "))", "(sumn a0 a1)"));
  }

  @Test
  void productsAndReductionsAreLinear() {
    assertTrue(proves("(matmul (sumn x0 x1) w)", "(sumn (matmul x0 w) (matmul x1 w))"));
    assertTrue(
        proves(
            "(rsum[0 1] (mul a0 (expand[2 3] (scalar[3.0 f32]))))",
            "(mul (rsum[0 1] a0) (expand[2] (scalar[3.0 f32])))"));
    assertTrue(
        proves(
            "(rmean[0 1] (sumn a0 a1))",
            "(div (sumn (rsum[0 1] a0) (rsum[0 1] a1)) (expand[2] (scalar[3.0 f32])))"));
  }

  @Test
  void gradientsAndPicksAreLinearInTheirFirstOperand() {
    assertTrue(
        proves(
            "(log_softmax_backward[1] (mul g " + HALF + ") w)",
            "(scale[1 2] (log_softmax_backward[1] g w))"));
    assertTrue(
        proves(
            "(softmax_backward[1] (sumn a0 a1) w)",
            "(sumn (softmax_backward[1] a0 w) (softmax_backward[1] a1 w))"));
    assertFalse(
        proves(
            "(softmax_backward[1] g (sumn a0 a1))",
            "(sumn (softmax_backward[1] g a0) (softmax_backward[1] g a1))"));
  }

  @Test
  void convolutionsAreBilinear() {
    // a 1-d convolution of x [N 4, C 2, L 1] (x0, x1 viewed so) by w [O 2, C 2, K 1]
    String x0 = "(reshape[4 2 1] x0)";
    String x1 = "(reshape[4 2 1] x1)";
    String w = "(reshape[2 2 1] (slice[1 0 2 1] w))";
    assertTrue(
        proves(
            "(conv[1 1 1 0 1] (sumn " + x0 + " " + x1 + ") " + w + ")",
            "(sumn (conv[1 1 1 0 1] "
                + x0
                + " "
                + w
                + ") (conv[1 1 1 0 1] "
                + x1
                + " "
                + w
                + "))"));
    assertFalse(
        proves(
            "(conv[1 1 1 0 1] (sumn " + x0 + " " + x1 + ") " + w + ")",
            "(conv[1 1 1 0 1] " + x0 + " " + w + ")"));
  }

  @Test
  void aScaleIsItsRationalFactor() {
    assertTrue(proves("(scale[1 2] (sumn a0 a1))", "(div (sumn a1 a0) " + TWO + ")"));
    assertTrue(proves("(scale[2 1] (scale[1 2] a0))", "a0"));
    assertFalse(proves("(scale[1 2] (sumn a0 a1))", "(sumn a0 a1)"));
  }

  @Test
  void itOnlyMergesAndAddsNoTerm() {
    TermReader t = new TermReader();
    DECLARE.forEach(t::add);
    int averaged = t.add("(mul (add a0 a1) " + HALF + ")");
    int summed = t.add("(sub b0 (neg b1))");
    EGraph<TypeInfo> g = t.graph();
    g.rebuild();
    int nodes = g.nodeCount();
    Runner.run(
        g,
        List.of(new LinearForms().rewrite()),
        new Runner.Limits(8, 100_000, System.nanoTime() + 60_000_000_000L, 100_000),
        () -> false);
    g.rebuild();
    assertEquals(nodes, g.nodeCount());
    // the mean a relation states is merged once its term is in the e-graph
    int mean = t.add("(scale[1 2] (sumn a0 a1))");
    int sum = t.add("(sumn b0 b1)");
    Runner.run(
        g,
        List.of(new LinearForms().rewrite()),
        new Runner.Limits(8, 100_000, System.nanoTime() + 60_000_000_000L, 100_000),
        () -> false);
    g.rebuild();
    assertEquals(g.find(averaged), g.find(mean));
    assertEquals(g.find(summed), g.find(sum));
  }

  @Test
  void aTransposeOfATransposedProductIsTheProduct() {
    List<String> declare = List.of("m:f32[4,3]", "x:f32[4,5]");
    assertTrue(
        LinearLawMatrixTest.proved(
            declare,
            "(permute[1 0] (permute[1 0] (scale[1 12] (matmul (permute[1 0] m) x))))",
            "(scale[1 12] (matmul (permute[1 0] m) x))"));
    assertTrue(
        LinearLawMatrixTest.proved(
            declare,
            "(reshape[3 5] (reshape[15] (matmul (permute[1 0] m) x)))",
            "(matmul (permute[1 0] m) x)"));
    assertFalse(
        LinearLawMatrixTest.proved(
            declare,
            "(reshape[5 3] (reshape[15] (matmul (permute[1 0] m) x)))",
            "(permute[1 0] (matmul (permute[1 0] m) x))"));
  }

  /**
   * Each rank's weight gradient {@code p_k = m_k^T x_k}, stored transposed and transposed back
   * ({@code q_k = p_k^T}, and permute-permute has put {@code p_k = q_k^T} in the class too), and a
   * rank's loss gradient {@code m_k} with its half {@code h_k} (each holding the other as a
   * multiple): the sequential gradient, a sum of products of halves, is half the sum of the
   * transposes back, whichever class the forms reach first.
   */
  @Test
  void cyclesOfClassesGiveOneFormWhicheverIsMetFirst() {
    for (boolean sidesFirst : new boolean[] {false, true}) {
      for (boolean transposedFirst : new boolean[] {false, true}) {
        assertTrue(
            gradientsMerge(sidesFirst, transposedFirst),
            "sides first " + sidesFirst + ", transposed first " + transposedFirst);
      }
    }
  }

  private static boolean gradientsMerge(boolean sidesFirst, boolean transposedFirst) {
    TermReader t = new TermReader();
    List.of(
            "m0:f32[4,3]",
            "m1:f32[4,3]",
            "x0:f32[4,5]",
            "x1:f32[4,5]",
            "p0:f32[3,5]",
            "p1:f32[3,5]",
            "q0:f32[5,3]",
            "q1:f32[5,3]",
            "h0:f32[4,3]",
            "h1:f32[4,3]")
        .forEach(t::add);
    String left = "(sumn (matmul (permute[1 0] h0) x0) (matmul (permute[1 0] h1) x1))";
    String right =
        "(mul (sumn (permute[1 0] q0) (permute[1 0] q1)) (expand[3 5] (scalar[0.5 f32])))";
    if (sidesFirst) {
      t.add(left);
      t.add(right);
    }
    EGraph<TypeInfo> g = t.graph();
    for (int k = 0; k < 2; k++) {
      if (transposedFirst) {
        g.union(t.add("q" + k), t.add("(permute[1 0] p" + k + ")"));
        g.union(t.add("p" + k), t.add("(permute[1 0] q" + k + ")"));
      }
      g.union(t.add("p" + k), t.add("(matmul (permute[1 0] m" + k + ") x" + k + ")"));
      if (!transposedFirst) {
        g.union(t.add("q" + k), t.add("(permute[1 0] p" + k + ")"));
        g.union(t.add("p" + k), t.add("(permute[1 0] q" + k + ")"));
      }
      g.union(t.add("h" + k), t.add("(scale[1 2] m" + k + ")"));
      g.union(t.add("m" + k), t.add("(mul h" + k + " (expand[4 3] (scalar[2.0 f32])))"));
    }
    int sequential = t.add(left);
    int reduced = t.add(right);
    g.rebuild();
    LinearLawMatrixTest.decide(g);
    return g.find(sequential) == g.find(reduced);
  }

  @Test
  void nothingCancelsSinceInfinitiesDoNot() {
    assertFalse(proves("(sub a0 a0)", "(mul a1 (expand[2 3] (scalar[0.0 f32])))"));
    assertFalse(proves("(add (sub a0 a0) a1)", "a1"));
    assertFalse(
        proves("(mul a0 (expand[2 3] (scalar[0.0 f32])))", "(expand[2 3] (scalar[0.0 f32]))"));
  }

  @Test
  void unequalFormsAreNeverMerged() {
    assertFalse(proves("(mul (sumn a0 a1) " + TWO + ")", "(sumn a0 a1)"));
    assertFalse(proves("(sumn a0 a1)", "(sumn a0 b1)"));
    assertFalse(proves("(rsum[0 1] a0)", "(rsum[0 0] a0)"));
    assertFalse(proves("(mul a0 a1)", "(add a0 a1)"));
  }
}
