package dev.entangle.eval;

import static dev.entangle.eval.Graphs.ref;
import static dev.entangle.eval.Graphs.type;
import static dev.entangle.eval.Tensors.f32;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.core.OpTable;
import dev.entangle.core.numeric.Tensor;
import dev.entangle.graph.Graph;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Pooling lowered to slices, on numbers, against values PyTorch computed (float64 on small
 * integers): max and average pools with stride and padding, padding left out of the count, the
 * average pool's backward, and adaptive average pooling with its backward.
 */
class PoolingLoweringTest {
  private static final long[] X_SHAPE = {1, 2, 5, 5};
  private static final double[] X = {
    0.0, 1.0, -4.0, 1.0, 3.0, -3.0, -2.0, 1.0, 4.0, -4.0, -2.0, -1.0, -3.0, 4.0, 0.0, -4.0, -1.0,
    2.0, -2.0, 3.0, 2.0, 2.0, 4.0, 3.0, 2.0, -4.0, 3.0, 4.0, 4.0, 0.0, 1.0, -2.0, 2.0, 2.0, 3.0,
    2.0, 4.0, 2.0, -2.0, -2.0, 2.0, 1.0, 1.0, 1.0, -4.0, 2.0, -4.0, 2.0, -2.0, 0.0
  };
  private static final double[] MAX_3_2_1 = {
    1.0, 4.0, 4.0, -1.0, 4.0, 4.0, 2.0, 4.0, 3.0, 3.0, 4.0, 4.0, 4.0, 4.0, 3.0, 2.0, 2.0, 1.0
  }; // [1, 2, 3, 3]
  private static final double[] AVG_3_2_1_NO_PAD_COUNT = {
    -1.0,
    0.16666666666666666,
    1.0,
    -2.1666666666666665,
    0.2222222222222222,
    0.8333333333333334,
    -0.25,
    1.3333333333333333,
    1.5,
    -0.5,
    2.1666666666666665,
    2.25,
    1.3333333333333333,
    1.0,
    -0.3333333333333333,
    0.25,
    -0.16666666666666666,
    -1.25
  }; // [1, 2, 3, 3]
  private static final double[] AVG_2 = {
    -1.0, 0.5, -2.0, 0.25, -0.5, 3.0, 2.25, 0.5
  }; // [1, 2, 2, 2]
  private static final double[] G_3_2_1 = {
    -1.0, -1.0, 0.0, 2.0, -4.0, 3.0, 1.0, 4.0, -1.0, -1.0, 0.0, 3.0, -1.0, 1.0, -1.0, -1.0, 3.0, 1.0
  };
  private static final double[] AVG_BACKWARD_3_2_1 = {
    -0.25,
    -0.41666666666666663,
    -0.16666666666666666,
    -0.16666666666666666,
    0.0,
    0.08333333333333331,
    -0.5277777777777777,
    -0.611111111111111,
    -0.11111111111111105,
    0.5,
    0.3333333333333333,
    -0.1111111111111111,
    -0.4444444444444444,
    0.05555555555555558,
    0.5,
    0.5833333333333333,
    0.8055555555555556,
    0.2222222222222222,
    0.4722222222222222,
    0.25,
    0.25,
    0.9166666666666666,
    0.6666666666666666,
    0.41666666666666663,
    -0.25,
    -0.25,
    -0.25,
    0.0,
    0.75,
    0.75,
    -0.41666666666666663,
    -0.3055555555555555,
    0.1111111111111111,
    0.6944444444444445,
    0.5833333333333334,
    -0.16666666666666666,
    -0.05555555555555555,
    0.1111111111111111,
    -0.05555555555555555,
    -0.16666666666666666,
    -0.41666666666666663,
    0.19444444444444442,
    0.6111111111111112,
    0.6944444444444444,
    0.08333333333333334,
    -0.25,
    0.25,
    0.5,
    0.75,
    0.25
  };
  private static final double[] ADAPTIVE_2_1 = {
    -0.25, -0.875, 1.25, 1.375
  }; // [1, 2, 2, 1] of x[:, :, :4, :4]
  private static final double[] X4 = {
    0.0, 1.0, -4.0, 1.0, -3.0, -2.0, 1.0, 4.0, -2.0, -1.0, -3.0, 4.0, -4.0, -1.0, 2.0, -2.0, -4.0,
    3.0, 4.0, 4.0, 1.0, -2.0, 2.0, 2.0, 2.0, 4.0, 2.0, -2.0, 2.0, 1.0, 1.0, 1.0
  };
  private static final double[] G_ADAPTIVE = {-3.0, 3.0, 0.0, -2.0};
  private static final double[] ADAPTIVE_BACKWARD = {
    -0.375, -0.375, -0.375, -0.375, -0.375, -0.375, -0.375, -0.375, 0.375, 0.375, 0.375, 0.375,
    0.375, 0.375, 0.375, 0.375, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -0.25, -0.25, -0.25, -0.25,
    -0.25, -0.25, -0.25, -0.25
  };

  private static final long[] WINDOW = {3, 3};
  private static final long[] STRIDE = {2, 2};
  private static final long[] PAD = {1, 1};

  private static Evaluation evaluate(Graph g, Map<String, Tensor> in) {
    return new LoweredEvaluator(new OpTable(), WorkBudget.defaults()).evaluate(g, in);
  }

  private static void assertValues(double[] want, Evaluation e, String node) {
    assertArrayEquals(want, e.tensor(-1, node).orElseThrow().values(), 1e-12, node);
  }

  @Test
  void maxAndAveragePoolsWithStrideAndPadding() {
    Graph g =
        new Graphs()
            .input("x", "float32", 1, 2, 5, 5)
            .tuple(
                "mp",
                "aten.max_pool2d_with_indices.default",
                List.of(type("float32", 1, 2, 3, 3), type("int64", 1, 2, 3, 3)),
                ref("x"),
                WINDOW,
                STRIDE,
                PAD)
            .item("max", "mp", 0, type("float32", 1, 2, 3, 3))
            .call(
                "avg",
                "aten.avg_pool2d.default",
                type("float32", 1, 2, 3, 3),
                ref("x"),
                WINDOW,
                STRIDE,
                PAD,
                false,
                false)
            .call(
                "avg2",
                "aten.avg_pool2d.default",
                type("float32", 1, 2, 2, 2),
                ref("x"),
                new long[] {2, 2},
                new long[] {2, 2})
            .build("max", "avg", "avg2");
    Evaluation e = evaluate(g, Map.of("x", f32(X_SHAPE, X)));
    assertValues(MAX_3_2_1, e, "max");
    assertValues(AVG_3_2_1_NO_PAD_COUNT, e, "avg");
    assertValues(AVG_2, e, "avg2");
  }

  @Test
  void theAveragePoolsBackwardIsItsAdjoint() {
    Graph g =
        new Graphs()
            .input("x", "float32", 1, 2, 5, 5)
            .input("g", "float32", 1, 2, 3, 3)
            .call(
                "dx",
                "aten.avg_pool2d_backward.default",
                type("float32", 1, 2, 5, 5),
                ref("g"),
                ref("x"),
                WINDOW,
                STRIDE,
                PAD,
                false,
                false,
                null)
            .build("dx");
    Map<String, Tensor> in =
        Map.of("x", f32(X_SHAPE, X), "g", f32(new long[] {1, 2, 3, 3}, G_3_2_1));
    Evaluation e = evaluate(g, in);
    assertValues(AVG_BACKWARD_3_2_1, e, "dx");
  }

  @Test
  void adaptiveAveragePoolingAndItsBackward() {
    Graph g =
        new Graphs()
            .input("x", "float32", 1, 2, 4, 4)
            .input("g", "float32", 1, 2, 2, 1)
            .call(
                "ad",
                "aten._adaptive_avg_pool2d.default",
                type("float32", 1, 2, 2, 1),
                ref("x"),
                new long[] {2, 1})
            .call(
                "dx",
                "aten._adaptive_avg_pool2d_backward.default",
                type("float32", 1, 2, 4, 4),
                ref("g"),
                ref("x"))
            .build("ad", "dx");
    Map<String, Tensor> in =
        Map.of(
            "x", f32(new long[] {1, 2, 4, 4}, X4), "g", f32(new long[] {1, 2, 2, 1}, G_ADAPTIVE));
    Evaluation e = evaluate(g, in);
    assertValues(ADAPTIVE_2_1, e, "ad");
    assertValues(ADAPTIVE_BACKWARD, e, "dx");
  }

  @Test
  void aCeilModeThatAddsAWindowStaysOpaque() {
    Graph g =
        new Graphs()
            .input("x", "float32", 1, 2, 5, 5)
            .call(
                "avg",
                "aten.avg_pool2d.default",
                type("float32", 1, 2, 2, 2),
                ref("x"),
                new long[] {2, 2},
                new long[] {2, 2},
                new long[] {0, 0},
                true)
            .build("avg");
    String term = dev.entangle.lower.LoweredTerms.of(g).get("avg");
    assertTrue(term.startsWith("(aten.avg_pool2d"), term);
  }
}
