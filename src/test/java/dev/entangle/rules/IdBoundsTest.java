package dev.entangle.rules;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.core.Op;
import dev.entangle.core.TypeInfo;
import dev.entangle.core.numeric.EvalException;
import dev.entangle.core.numeric.Tensor;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;
import dev.entangle.eval.Kernels;
import dev.entangle.eval.WorkBudget;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The bounds of ids hold on numbers: random integer and bool terms (clamps, sums, differences,
 * products, maxima, minima, positions, concats of slices, wheres, comparisons and logic on masks),
 * evaluated on random leaves, never hold an element outside the bounds {@link IdBounds} gives their
 * classes, in a wide dtype and in one narrow enough to wrap around; and the bounds are not vacuous.
 */
class IdBoundsTest {
  private static final int TERMS = 300;

  @ParameterizedTest
  @ValueSource(strings = {"i64", "i8"})
  void everyElementLiesInItsClassBounds(String dtype) {
    int finite = 0;
    for (int i = 0; i < TERMS; i++) {
      Random r = new Random(i * 31L + dtype.length());
      TermReader t = new TermReader();
      Gen gen = new Gen(r, dtype);
      String term = gen.ints(4);
      int root = t.add(term);
      EGraph<TypeInfo> g = t.graph();
      g.rebuild();
      Tensor[] leaves = new Tensor[t.leafCount()];
      for (int k = 0; k < leaves.length; k++) {
        double[] v = new double[4];
        for (int j = 0; j < 4; j++) {
          v[j] = r.nextInt(41) - 20;
        }
        leaves[k] = Tensor.of(t.leafType(k).dtype(), t.leafType(k).shape(), v);
      }
      Kernels kernels = new Kernels(t.table(), WorkBudget.unlimited(), id -> leaves[(int) id]);
      Map<Integer, Tensor> values = new HashMap<>();
      for (int c : g.classIds()) {
        Tensor v = value(g, kernels, c, values);
        double[] b = IdBounds.of(g, c);
        if (v == null) {
          continue;
        }
        for (double x : v.values()) {
          assertTrue(b[0] <= x && x <= b[1], term + ": " + x + " outside " + b[0] + ".." + b[1]);
        }
      }
      double[] b = IdBounds.of(g, root);
      finite += b[0] > Double.NEGATIVE_INFINITY && b[1] < Double.POSITIVE_INFINITY ? 1 : 0;
    }
    assertTrue(finite > TERMS / 4, "bounds found for only " + finite + " of " + TERMS + " terms");
  }

  @Test
  void arithmeticThatMayWrapAroundGivesNoBound() {
    TermReader t = new TermReader();
    // ids in [100, 120] plus 100 are 200 to 220 exactly, which int8 wraps to -56 to -36
    int sum =
        t.add(
            "(add (minimum (maximum a:i8[4] (expand[4] (scalar[100.0 i8]))) (expand[4] (scalar[120.0"
                + " i8]))) (expand[4] (scalar[100.0 i8])))");
    int wide =
        t.add(
            "(add (minimum (maximum b:i64[4] (expand[4] (scalar[100.0 i64]))) (expand[4]"
                + " (scalar[120.0 i64]))) (expand[4] (scalar[100.0 i64])))");
    EGraph<TypeInfo> g = t.graph();
    g.rebuild();
    assertArrayEquals(
        new double[] {Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY}, IdBounds.of(g, sum));
    assertArrayEquals(new double[] {200, 220}, IdBounds.of(g, wide));
  }

  /** The class's value: its one node (a read term has no other) evaluated, or null. */
  private static Tensor value(EGraph<TypeInfo> g, Kernels k, int c, Map<Integer, Tensor> values) {
    int root = g.find(c);
    if (values.containsKey(root)) {
      return values.get(root);
    }
    ENode n = g.nodes(root).get(0);
    Tensor[] kids = new Tensor[n.arity()];
    Tensor out = null;
    boolean ok = true;
    for (int i = 0; i < kids.length && ok; i++) {
      kids[i] = value(g, k, n.child(i), values);
      ok = kids[i] != null;
    }
    if (ok) {
      Op core = Op.of(n.op());
      try {
        out =
            kids.length == 1 && core != null && core.isIdentityOfOne()
                ? kids[0]
                : k.apply(n.op(), n.attrs(), kids);
      } catch (EvalException | IllegalArgumentException | ArithmeticException e) {
        out = null;
      }
    }
    values.put(root, out);
    return out;
  }

  /** Random terms of shape [n] in the lemma-case syntax. */
  private static final class Gen {
    private final Random r;
    private final String dt;
    private int leaves;

    Gen(Random r, String dt) {
      this.r = r;
      this.dt = dt;
    }

    String ints(int depth) {
      int pick = depth <= 0 ? r.nextInt(3) : r.nextInt(11);
      return switch (pick) {
        case 0 -> leaves++ == 0 ? "a:" + dt + "[4]" : "a";
        case 1 -> constant(dt.equals("i8") ? r.nextInt(201) - 100 : r.nextInt(21) - 10);
        case 2 -> arange(r.nextInt(9) - 4);
        case 3 ->
            "(minimum (maximum "
                + ints(depth - 1)
                + " "
                + constant(r.nextInt(11) - 5)
                + ") "
                + constant(r.nextInt(11))
                + ")";
        case 4 -> "(add " + ints(depth - 1) + " " + ints(depth - 1) + ")";
        case 5 -> "(sub " + ints(depth - 1) + " " + ints(depth - 1) + ")";
        case 6 -> "(mul " + ints(depth - 1) + " " + ints(depth - 1) + ")";
        case 7 ->
            "("
                + (r.nextBoolean() ? "maximum " : "minimum ")
                + ints(depth - 1)
                + " "
                + ints(depth - 1)
                + ")";
        case 8 -> "(where " + mask(depth - 1) + " " + ints(depth - 1) + " " + ints(depth - 1) + ")";
        case 9 ->
            "(concat[0] (slice[0 0 2 1] "
                + ints(depth - 1)
                + ") (slice[0 2 4 1] "
                + ints(depth - 1)
                + "))";
        default -> "(neg " + ints(depth - 1) + ")";
      };
    }

    String mask(int depth) {
      String[] cmp = {"lt", "le", "gt", "ge"};
      return switch (depth <= 0 ? 0 : r.nextInt(4)) {
        case 0 -> "(" + cmp[r.nextInt(4)] + " " + ints(depth) + " " + ints(depth) + ")";
        case 1 -> "(and " + mask(depth - 1) + " " + mask(depth - 1) + ")";
        case 2 -> "(or " + mask(depth - 1) + " " + mask(depth - 1) + ")";
        default -> "(not " + mask(depth - 1) + ")";
      };
    }

    private String arange(int start) {
      return "(arange[" + start + " " + (start + 4) + " 1 " + dt + "])";
    }

    private String constant(int k) {
      return "(expand[4] (scalar[" + k + ".0 " + dt + "]))";
    }
  }
}
