package dev.entangle.eval;

import static dev.entangle.eval.Graphs.ref;
import static dev.entangle.eval.Graphs.type;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import dev.entangle.core.OpTable;
import dev.entangle.core.numeric.Tensor;
import dev.entangle.graph.Graph;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code topk}, the vector norms ({@code linalg_vector_norm}, {@code norm}) and the triangles
 * ({@code triu}, {@code tril}) on numbers, against the values PyTorch computed for the same inputs
 * (float64 where a float32 sum would round).
 */
class TopkNormTriangleLoweringTest {
  private static final long[] SHAPE = {2, 3, 4};
  private static final double[] X = {
    0, 1, -3, -1, -3, -1, 2, -2, 3, -3, 3, -4, -2, -2, -4, 0, -1, 2, 4, 4, -4, 1, 2, -3
  };
  private static final double[] Y = {
    0.5, 1, -3, 2.5, -3, -1, 2, -2, 3, -3.5, 3.25, -4, -2, -2.5, -4, 0.75, -1, 2, 4, 4.5, -4.25, 1,
    2, -3
  };

  private static Graphs inputs() {
    return new Graphs()
        .input("x", "float32", SHAPE)
        .input("y", "float32", SHAPE)
        .input("y64", "float64", SHAPE);
  }

  private static Evaluation evaluate(Graph g) {
    return new LoweredEvaluator(new OpTable(), WorkBudget.defaults())
        .evaluate(
            g,
            Map.of(
                "x", Tensor.of(Tensors.F32, SHAPE, X),
                "y", Tensor.of(Tensors.F32, SHAPE, Y),
                "y64", Tensor.of(Tensors.F64, SHAPE, Y)));
  }

  private static void assertValues(double[] want, Evaluation e, String node) {
    assertArrayEquals(want, e.tensor(-1, node).orElseThrow().values(), 1e-12, node);
  }

  @Test
  void triangleKeepsTheEntriesOnOneSideOfADiagonalOfTheLastTwoDims() {
    Graph g =
        inputs()
            .call("upper1", "aten.triu.default", type("float32", SHAPE), ref("x"), 1)
            .call("lowerM1", "aten.tril.default", type("float32", SHAPE), ref("x"), -1)
            .call("upper", "aten.triu.default", type("float32", SHAPE), ref("x"))
            .build("upper1", "lowerM1", "upper");
    Evaluation e = evaluate(g);
    assertValues(
        new double[] {
          0, 1, -3, -1, 0, 0, 2, -2, 0, 0, 0, -4, 0, -2, -4, 0, 0, 0, 4, 4, 0, 0, 0, -3
        },
        e,
        "upper1");
    assertValues(
        new double[] {0, 0, 0, 0, -3, 0, 0, 0, 3, -3, 0, 0, 0, 0, 0, 0, -1, 0, 0, 0, -4, 1, 0, 0},
        e,
        "lowerM1");
    assertValues(
        new double[] {
          0, 1, -3, -1, 0, -1, 2, -2, 0, 0, 3, -4, -2, -2, -4, 0, 0, 2, 4, 4, 0, 0, 2, -3
        },
        e,
        "upper");
  }

  @Test
  void topkGivesTheLargestOrSmallestEntriesInOrderAndWhereTheyWere() {
    Graph g =
        inputs()
            .tuple(
                "top",
                "aten.topk.default",
                List.of(type("float32", 2, 3, 2), type("int64", 2, 3, 2)),
                ref("y"),
                2)
            .item("topv", "top", 0, type("float32", 2, 3, 2))
            .item("topi", "top", 1, type("int64", 2, 3, 2))
            .tuple(
                "low",
                "aten.topk.default",
                List.of(type("float32", 2, 2, 4), type("int64", 2, 2, 4)),
                ref("y"),
                2,
                1,
                false)
            .item("lowv", "low", 0, type("float32", 2, 2, 4))
            .item("lowi", "low", 1, type("int64", 2, 2, 4))
            .build("topv", "topi", "lowv", "lowi");
    Evaluation e = evaluate(g);
    assertValues(new double[] {2.5, 1, 2, -1, 3.25, 3, 0.75, -2, 4.5, 4, 2, 1}, e, "topv");
    assertValues(new double[] {3, 1, 2, 1, 2, 0, 3, 0, 3, 2, 2, 1}, e, "topi");
    assertValues(
        new double[] {-3, -3.5, -3, -4, 0.5, -1, 2, -2, -4.25, -2.5, -4, -3, -2, 1, 2, 0.75},
        e,
        "lowv");
    assertValues(new double[] {1, 2, 0, 2, 0, 1, 1, 1, 2, 0, 0, 2, 0, 2, 2, 0}, e, "lowi");
  }

  @Test
  void aNaNIsTheLargestEntryFirstAmongTheLargestAndLastAmongTheSmallest() {
    Graph g =
        new Graphs()
            .input("v", "float32", 4)
            .tuple(
                "top",
                "aten.topk.default",
                List.of(type("float32", 2), type("int64", 2)),
                ref("v"),
                2)
            .item("topv", "top", 0, type("float32", 2))
            .item("topi", "top", 1, type("int64", 2))
            .tuple(
                "low",
                "aten.topk.default",
                List.of(type("float32", 3), type("int64", 3)),
                ref("v"),
                3,
                -1,
                false)
            .item("lowv", "low", 0, type("float32", 3))
            .item("lowi", "low", 1, type("int64", 3))
            .build("topv", "topi", "lowv", "lowi");
    Evaluation e =
        new LoweredEvaluator(new OpTable(), WorkBudget.defaults())
            .evaluate(g, Map.of("v", Tensor.of(Tensors.F32, new long[] {4}, 1, Double.NaN, 0, 2)));
    assertValues(new double[] {Double.NaN, 2}, e, "topv");
    assertValues(new double[] {1, 3}, e, "topi");
    assertValues(new double[] {0, 1, 2}, e, "lowv");
    assertValues(new double[] {2, 0, 3}, e, "lowi");
  }

  @Test
  void vectorNormsOfEveryOrderOverTheDimsGiven() {
    Graph g =
        inputs()
            .call(
                "n2",
                "aten.linalg_vector_norm.default",
                type("float64", 2, 3),
                ref("y64"),
                2,
                new long[] {-1})
            .call(
                "n1",
                "aten.linalg_vector_norm.default",
                type("float64", 1, 3, 1),
                ref("y64"),
                1,
                new long[] {0, 2},
                true)
            .call(
                "nInf",
                "aten.linalg_vector_norm.default",
                type("float64"),
                ref("y64"),
                Double.POSITIVE_INFINITY)
            .call(
                "nMinusInf",
                "aten.linalg_vector_norm.default",
                type("float64", 3, 4),
                ref("y64"),
                Double.NEGATIVE_INFINITY,
                new long[] {0})
            .call(
                "n0",
                "aten.linalg_vector_norm.default",
                type("float64", 2, 4),
                ref("y64"),
                0,
                new long[] {1})
            .call(
                "n3",
                "aten.linalg_vector_norm.default",
                type("float64", 2, 3),
                ref("y64"),
                3,
                new long[] {-1})
            .call("whole", "aten.norm.Scalar", type("float64"), ref("y64"))
            .build("n2", "n1", "nInf", "nMinusInf", "n0", "n3", "whole");
    Evaluation e = evaluate(g);
    assertValues(
        new double[] {
          4.06201920231798,
          4.242640687119285,
          6.914658342969665,
          5.178078794301995,
          6.422616289332565,
          5.662375826453062
        },
        e,
        "n2");
    assertValues(new double[] {16.25, 19.5, 24}, e, "n1");
    assertValues(new double[] {4.5}, e, "nInf");
    assertValues(new double[] {0.5, 1, 3, 0.75, 1, 1, 2, 2, 3, 1, 2, 3}, e, "nMinusInf");
    assertValues(new double[] {3, 3, 3, 3, 3, 3, 3, 3}, e, "n0");
    assertValues(
        new double[] {
          3.5236493660324455,
          3.530348335326063,
          5.52007129231245,
          4.4487498066089985,
          5.475093998372265,
          4.831243316214735
        },
        e,
        "n3");
    assertValues(new double[] {13.5069426592401}, e, "whole");
  }
}
