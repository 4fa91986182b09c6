package dev.entangle.eval;

import static dev.entangle.eval.Graphs.ref;
import static dev.entangle.eval.Graphs.type;
import static dev.entangle.eval.Tensors.f32;
import static dev.entangle.eval.Tensors.i64;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import dev.entangle.core.OpTable;
import dev.entangle.core.numeric.Tensor;
import dev.entangle.graph.Graph;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Operators lowered through decompositions into the core language, on numbers, against values
 * PyTorch computed (small integers; float64 where rounding to float32 would differ): {@code
 * repeat}, {@code index_select}, {@code gather}, {@code diagonal}, {@code scatter_add}, {@code
 * select_scatter}, reflection and replication padding, nearest upsampling by whole factors, {@code
 * flip}, {@code var}, {@code argmin}, {@code any}, {@code fill}, {@code cumsum}, group norm, and
 * batch norm in training (with its moved running statistics) and inference.
 */
class IndexingLayoutLoweringTest {
  private static final long[] X_SHAPE = {2, 3, 4};
  private static final double[] X = {
    0, 1, -3, -1, -3, -1, 2, -2, 3, -3, 3, -4, -2, -2, -4, 0, -1, 2, 4, 4, -4, 1, 2, -3
  };

  /** Evaluates g on x (float32 and float64), ids and rows, and the extra inputs given. */
  private static Evaluation evaluate(Graph g, Object... extra) {
    Map<String, Tensor> in = new HashMap<>();
    in.put("x", f32(X_SHAPE, X));
    in.put("x64", Tensor.of(Tensors.F64, X_SHAPE, X));
    in.put("ids", i64(new long[] {4}, 3, 0, 3, 1));
    in.put("rows", i64(new long[] {2}, 2, 0));
    for (int i = 0; i < extra.length; i += 2) {
      in.put((String) extra[i], (Tensor) extra[i + 1]);
    }
    return evaluateOn(g, in);
  }

  /** The inputs of the batch norm tests: x [2, 3, 2, 2], and w, b, rm, rv per channel. */
  private static Graphs batchNormInputs() {
    return new Graphs()
        .input("x", "float64", 2, 3, 2, 2)
        .input("w", "float64", 3)
        .input("b", "float64", 3)
        .input("rm", "float64", 3)
        .input("rv", "float64", 3);
  }

  private static Evaluation evaluateBatchNorm(Graph g) {
    long[] c = {3};
    double[] x = {-4, 1, 1, -1, 0, 4, 2, -3, 0, 0, 2, 1, 4, 3, 4, -4, 0, -4, 1, -4, 3, 2, 3, 4};
    return evaluateOn(
        g,
        Map.of(
            "x", Tensor.of(Tensors.F64, new long[] {2, 3, 2, 2}, x),
            "w", Tensor.of(Tensors.F64, c, 2, 1, -1),
            "b", Tensor.of(Tensors.F64, c, 0.5, 0, 1),
            "rm", Tensor.of(Tensors.F64, c, 1, -1, 0.5),
            "rv", Tensor.of(Tensors.F64, c, 4, 1, 0.25)));
  }

  private static Evaluation evaluateOn(Graph g, Map<String, Tensor> inputs) {
    return new LoweredEvaluator(new OpTable(), WorkBudget.defaults()).evaluate(g, inputs);
  }

  private static void assertValues(double[] want, Evaluation e, String node) {
    Tensor t = e.tensor(-1, node).orElseThrow();
    assertArrayEquals(want, t.values(), 1e-12, node);
  }

  private static Graphs inputs() {
    return new Graphs()
        .input("x", "float32", X_SHAPE)
        .input("x64", "float64", X_SHAPE)
        .input("ids", "int64", 4)
        .input("rows", "int64", 2);
  }

  @Test
  void repeatTilesWholeCopiesAndAddsLeadingDims() {
    Graph g =
        inputs()
            .call(
                "r4",
                "aten.repeat.default",
                type("float32", 2, 2, 3, 8),
                ref("x"),
                new long[] {2, 1, 1, 2})
            .call(
                "r3",
                "aten.repeat.default",
                type("float32", 2, 6, 4),
                ref("x"),
                new long[] {1, 2, 1})
            .build("r4", "r3");
    Evaluation e = evaluate(g);
    assertValues(
        new double[] {
          0, 1, -3, -1, 0, 1, -3, -1, -3, -1, 2, -2, -3, -1, 2, -2, 3, -3, 3, -4, 3, -3, 3, -4, -2,
          -2, -4, 0, -2, -2, -4, 0, -1, 2, 4, 4, -1, 2, 4, 4, -4, 1, 2, -3, -4, 1, 2, -3, 0, 1, -3,
          -1, 0, 1, -3, -1, -3, -1, 2, -2, -3, -1, 2, -2, 3, -3, 3, -4, 3, -3, 3, -4, -2, -2, -4, 0,
          -2, -2, -4, 0, -1, 2, 4, 4, -1, 2, 4, 4, -4, 1, 2, -3, -4, 1, 2, -3
        },
        e,
        "r4");
    assertValues(
        new double[] {
          0, 1, -3, -1, -3, -1, 2, -2, 3, -3, 3, -4, 0, 1, -3, -1, -3, -1, 2, -2, 3, -3, 3, -4, -2,
          -2, -4, 0, -1, 2, 4, 4, -4, 1, 2, -3, -2, -2, -4, 0, -1, 2, 4, 4, -4, 1, 2, -3
        },
        e,
        "r3");
  }

  @Test
  void indexSelectTakesEntriesAlongADimInTheirOrder() {
    Graph g =
        inputs()
            .call(
                "last",
                "aten.index_select.default",
                type("float32", 2, 3, 4),
                ref("x"),
                2,
                ref("ids"))
            .call(
                "inner",
                "aten.index_select.default",
                type("float32", 2, 2, 4),
                ref("x"),
                1,
                ref("rows"))
            .build("last", "inner");
    Evaluation e = evaluate(g);
    assertValues(
        new double[] {
          -1, 0, -1, 1, -2, -3, -2, -1, -4, 3, -4, -3, 0, -2, 0, -2, 4, -1, 4, 2, -3, -4, -3, 1
        },
        e,
        "last");
    assertValues(
        new double[] {3, -3, 3, -4, 0, 1, -3, -1, -4, 1, 2, -3, -2, -2, -4, 0}, e, "inner");
  }

  @Test
  void indexingOneDimTakesEntriesAlongItAndGivesTheIndexItsShape() {
    Graph g =
        inputs()
            .input("grid", "int64", 2, 2)
            .call("back", "aten.arange.start_step", type("int64", 2), -1, -4, -2)
            .call(
                "inner",
                "aten.index.Tensor",
                type("float32", 2, 2, 4),
                ref("x"),
                java.util.Arrays.asList(null, ref("rows")))
            .call(
                "cells",
                "aten.index.Tensor",
                type("float32", 2, 3, 2, 2),
                ref("x"),
                java.util.Arrays.asList(null, null, ref("grid")))
            .call(
                "fromEnd",
                "aten.index.Tensor",
                type("float32", 2, 2, 4),
                ref("x"),
                java.util.Arrays.asList(null, ref("back")))
            .build("inner", "cells", "fromEnd");
    Evaluation e = evaluate(g, "grid", i64(new long[] {2, 2}, 3, 1, 0, 2));
    double[] inner = {3, -3, 3, -4, 0, 1, -3, -1, -4, 1, 2, -3, -2, -2, -4, 0};
    assertValues(inner, e, "inner");
    assertValues(
        new double[] {
          -1, 1, 0, -3, -2, -1, -3, 2, -4, -3, 3, 3, 0, -2, -2, -4, 4, 2, -1, 4, -3, 1, -4, 2
        },
        e,
        "cells");
    assertValues(inner, e, "fromEnd"); // [-1, -3] counts from the end: rows 2 and 0
  }

  @Test
  void flipReversesEachDimGiven() {
    Graph g =
        inputs()
            .call("f", "aten.flip.default", type("float32", 2, 3, 4), ref("x"), new long[] {0, -1})
            .build("f");
    assertValues(
        new double[] {
          0, -4, -2, -2, 4, 4, 2, -1, -3, 2, 1, -4, -1, -3, 1, 0, -2, 2, -1, -3, -4, 3, -3, 3
        },
        evaluate(g),
        "f");
  }

  @Test
  void varianceDividesBySizeLessTheCorrection() {
    Graph g =
        inputs()
            .call(
                "v1",
                "aten.var.dim",
                type("float64", 2, 4),
                ref("x64"),
                new long[] {1},
                true,
                false)
            .kwargs("correction", 0, "keepdim", true)
            .call(
                "v02",
                "aten.var.correction",
                type("float64", 1, 3, 1),
                ref("x64"),
                new long[] {0, 2})
            .call("all", "aten.var.default", type("float64"), ref("x64"))
            .build("v1", "v02", "all");
    Evaluation e = evaluate(g);
    assertValues(
        new double[] {
          9.0,
          4.0,
          10.333333333333332,
          2.333333333333333,
          2.333333333333333,
          4.333333333333333,
          17.333333333333332,
          12.333333333333332
        },
        e,
        "v1");
    assertValues(new double[] {2.484375, 6.484375, 8.734375}, e, "v02");
    assertValues(new double[] {6.867753623188406}, e, "all");
  }

  @Test
  void argminAnyAndFillFollowTorch() {
    Graph g =
        inputs()
            .call("amin", "aten.argmin.default", type("int64", 2, 3), ref("x"), 2)
            .call("amin1", "aten.argmin.default", type("int64", 2, 1, 4), ref("x"), 1, true)
            .call("pos", "aten.gt.Scalar", type("bool", 2, 3, 4), ref("x"), 0)
            .call("anyAll", "aten.any.default", type("bool"), ref("pos"))
            .call("any1", "aten.any.dim", type("bool", 2, 4), ref("pos"), 1)
            .call("anyX", "aten.any.dims", type("bool", 2, 3), ref("x"), new long[] {2})
            .call("filled", "aten.fill.Scalar", type("float32", 2, 3, 4), ref("x"), 2.5)
            .build("amin", "amin1", "anyAll", "any1", "anyX", "filled");
    Evaluation e = evaluate(g);
    assertValues(new double[] {2, 0, 3, 2, 0, 0}, e, "amin");
    assertValues(new double[] {1, 2, 0, 2, 2, 0, 0, 2}, e, "amin1");
    assertValues(new double[] {1}, e, "anyAll");
    assertValues(new double[] {1, 1, 1, 0, 0, 1, 1, 1}, e, "any1");
    assertValues(new double[] {1, 1, 1, 1, 1, 1}, e, "anyX");
    double[] twoAndAHalf = new double[24];
    Arrays.fill(twoAndAHalf, 2.5);
    assertValues(twoAndAHalf, e, "filled");
  }

  @Test
  void cumsumRunsAlongTheDimAndCountsBoolsInInt64() {
    Graph g =
        inputs()
            .call("c1", "aten.cumsum.default", type("float32", 2, 3, 4), ref("x"), 1)
            .call("pos", "aten.gt.Scalar", type("bool", 2, 3, 4), ref("x"), 0)
            .call("c2", "aten.cumsum.default", type("int64", 2, 3, 4), ref("pos"), -1)
            .build("c1", "c2");
    Evaluation e = evaluate(g);
    assertValues(
        new double[] {
          0, 1, -3, -1, -3, 0, -1, -3, 0, -3, 2, -7, -2, -2, -4, 0, -3, 0, 0, 4, -7, 1, 2, 1
        },
        e,
        "c1");
    assertValues(
        new double[] {0, 1, 1, 1, 0, 0, 1, 1, 1, 1, 2, 2, 0, 0, 0, 0, 0, 1, 2, 3, 0, 1, 2, 2},
        e,
        "c2");
  }

  @Test
  void batchNormInInferenceUsesTheRunningStatistics() {
    Graph g =
        batchNormInputs()
            .tuple(
                "bn",
                "aten._native_batch_norm_legit_no_training.default",
                List.of(type("float64", 2, 3, 2, 2), type("float64", 0), type("float64", 0)),
                ref("x"),
                ref("w"),
                ref("b"),
                ref("rm"),
                ref("rv"),
                0.1,
                1e-5)
            .item("y", "bn", 0, type("float64", 2, 3, 2, 2))
            .build("y");
    Evaluation e = evaluateBatchNorm(g);
    assertValues(
        new double[] {
          -4.499993750011718,
          0.5,
          0.5,
          -1.4999975000046875,
          0.9999950000374997,
          4.999975000187499,
          2.999985000112499,
          -1.9999900000749995,
          1.99998000059998,
          1.99998000059998,
          -1.9999400017999398,
          1.9999400020065394e-05,
          3.4999962500070314,
          2.4999975000046875,
          3.4999962500070314,
          -4.499993750011718,
          0.9999950000374997,
          -2.999985000112499,
          1.9999900000749995,
          -2.999985000112499,
          -3.9999000029998997,
          -1.9999400017999398,
          -3.9999000029998997,
          -5.99986000419986
        },
        e,
        "y");
  }

  @Test
  void gatherPicksAlongADimWithAnIndexNoLargerThanTheInput() {
    Graph g =
        inputs()
            .input("i1", "int64", 2, 1, 4)
            .input("i2", "int64", 2, 2, 2)
            .call("g1", "aten.gather.default", type("float32", 2, 1, 4), ref("x"), 1, ref("i1"))
            .call("g2", "aten.gather.default", type("float32", 2, 2, 2), ref("x"), 2, ref("i2"))
            .build("g1", "g2");
    Evaluation e =
        evaluate(
            g,
            "i1",
            i64(new long[] {2, 1, 4}, 2, 0, 1, 2, 1, 1, 0, 2),
            "i2",
            i64(new long[] {2, 2, 2}, 3, 0, 1, 1, 0, 2, 3, 3));
    assertValues(new double[] {3, 1, 2, -4, -1, 2, -4, -3}, e, "g1");
    assertValues(new double[] {-1, 0, -1, -1, -2, -4, 4, 4}, e, "g2");
  }

  @Test
  void groupNormNormalizesEachSamplesGroupAndScalesPerChannel() {
    double[] x = {4, -1, 3, -1, 4, 3, -3, -2, 2, -3, -3, -1, 4, 4, -4, 2, 2, 2, 1, 0, -1, 2, 2, -4};
    Graph g =
        new Graphs()
            .input("x", "float64", 2, 4, 3)
            .input("w", "float64", 4)
            .input("b", "float64", 4)
            .tuple(
                "gn",
                "aten.native_group_norm.default",
                List.of(type("float64", 2, 4, 3), type("float64", 2, 2), type("float64", 2, 2)),
                ref("x"),
                ref("w"),
                ref("b"),
                2,
                4,
                3,
                2,
                1e-5)
            .item("y", "gn", 0, type("float64", 2, 4, 3))
            .item("mean", "gn", 1, type("float64", 2, 2))
            .item("rstd", "gn", 2, type("float64", 2, 2))
            .build("y", "mean", "rstd");
    long[] c = {4};
    Evaluation e =
        evaluateOn(
            g,
            Map.of(
                "x", Tensor.of(Tensors.F64, new long[] {2, 4, 3}, x),
                "w", Tensor.of(Tensors.F64, c, 2, 1, -1, 0.5),
                "b", Tensor.of(Tensors.F64, c, 0.5, 0, 1, -2)));
    assertValues(
        new double[] {
          2.351638215648078,
          -2.2774573234721167,
          1.425819107824039,
          -1.3887286617360584,
          0.925819107824039,
          0.4629095539120195,
          1.7427802001191361,
          1.185695050029784,
          -1.042645550327624,
          -2.371390100059568,
          -2.371390100059568,
          -1.814304949970216,
          2.2364850820673547,
          2.2364850820673547,
          -3.7171780564492893,
          0.12403464871909675,
          0.12403464871909675,
          0.12403464871909675,
          0.5196160928735424,
          1.0,
          1.4803839071264577,
          -1.5196160928735423,
          -1.5196160928735423,
          -2.9607678142529155
        },
        e,
        "y");
    assertValues(new double[] {2.0, -1.6666666666666665, 1.6666666666666665, 0}, e, "mean");
    assertValues(
        new double[] {
          0.4629095539120195, 0.557085150089352, 0.37210394615729026, 0.4803839071264576
        },
        e,
        "rstd");
  }

  @Test
  void scatterAddAddsEachSourceEntryWhereItsIndexPoints() {
    Graph g =
        inputs()
            .input("i1", "int64", 2, 1, 4)
            .input("s1", "float32", 2, 1, 4)
            .input("i2", "int64", 1, 2, 2)
            .input("s2", "float32", 2, 2, 3)
            .call(
                "a1",
                "aten.scatter_add.default",
                type("float32", 2, 3, 4),
                ref("x"),
                1,
                ref("i1"),
                ref("s1"))
            .call(
                "a2",
                "aten.scatter_add.default",
                type("float32", 2, 3, 4),
                ref("x"),
                2,
                ref("i2"),
                ref("s2"))
            .build("a1", "a2");
    Evaluation e =
        evaluate(
            g,
            "i1",
            i64(new long[] {2, 1, 4}, 2, 0, 1, 2, 1, 1, 0, 2),
            "s1",
            f32(new long[] {2, 1, 4}, 1, 2, 3, 4, 5, 6, 7, 8),
            "i2",
            i64(new long[] {1, 2, 2}, 3, 3, 1, 0),
            "s2",
            f32(new long[] {2, 2, 3}, 10, 20, 99, 30, 40, 99, 99, 99, 99, 99, 99, 99));
    assertValues(
        new double[] {
          0, 3, -3, -1, -3, -1, 5, -2, 4, -3, 3, 0, -2, -2, 3, 0, 4, 8, 4, 4, -4, 1, 2, 5
        },
        e,
        "a1");
    assertValues(
        new double[] {
          0, 1, -3, 29, 37, 29, 2, -2, 3, -3, 3, -4, -2, -2, -4, 0, -1, 2, 4, 4, -4, 1, 2, -3
        },
        e,
        "a2");
  }

  @Test
  void selectScatterReflectionAndReplicationPadsAndNearestUpsamplingFollowTorch() {
    Graph g =
        inputs()
            .input("row", "float32", 2, 4)
            .input("y", "float32", 1, 1, 2, 3)
            .call(
                "ss",
                "aten.select_scatter.default",
                type("float32", 2, 3, 4),
                ref("x"),
                ref("row"),
                1,
                -1)
            .call(
                "x4",
                "aten.view.default",
                type("float32", 1, 2, 3, 4),
                ref("x"),
                new long[] {1, 2, 3, 4})
            .call(
                "refl2",
                "aten.reflection_pad2d.default",
                type("float32", 1, 2, 6, 7),
                ref("x4"),
                new long[] {2, 1, 1, 2})
            .call(
                "repl2",
                "aten.replication_pad2d.default",
                type("float32", 1, 2, 4, 7),
                ref("x4"),
                new long[] {1, 2, 0, 1})
            .call(
                "refl1",
                "aten.reflection_pad1d.default",
                type("float32", 2, 3, 8),
                ref("x"),
                new long[] {3, 1})
            .call(
                "up",
                "aten.upsample_nearest2d.vec",
                type("float32", 1, 1, 4, 6),
                ref("y"),
                null,
                List.of(2.0, 2.0))
            .call(
                "padded",
                "aten.pad.default",
                type("float32", 2, 3, 8),
                ref("x"),
                new long[] {3, 1},
                "reflect")
            .build("ss", "refl2", "repl2", "refl1", "up", "padded");
    Evaluation e =
        evaluate(
            g,
            "row",
            f32(new long[] {2, 4}, 10, 20, 30, 40, 50, 60, 70, 80),
            "y",
            f32(new long[] {1, 1, 2, 3}, -4, 1, 1, -1, 0, 4));
    assertValues(
        new double[] {
          0, 1, -3, -1, -3, -1, 2, -2, 10, 20, 30, 40, -2, -2, -4, 0, -1, 2, 4, 4, 50, 60, 70, 80
        },
        e,
        "ss");
    assertValues(
        new double[] {
          2, -1, -3, -1, 2, -2, 2, -3, 1, 0, 1, -3, -1, -3, 2, -1, -3, -1, 2, -2, 2, 3, -3, 3, -3,
          3, -4, 3, 2, -1, -3, -1, 2, -2, 2, -3, 1, 0, 1, -3, -1, -3, 4, 2, -1, 2, 4, 4, 4, -4, -2,
          -2, -2, -4, 0, -4, 4, 2, -1, 2, 4, 4, 4, 2, 1, -4, 1, 2, -3, 2, 4, 2, -1, 2, 4, 4, 4, -4,
          -2, -2, -2, -4, 0, -4
        },
        e,
        "refl2");
    assertValues(
        new double[] {
          0, 0, 1, -3, -1, -1, -1, -3, -3, -1, 2, -2, -2, -2, 3, 3, -3, 3, -4, -4, -4, 3, 3, -3, 3,
          -4, -4, -4, -2, -2, -2, -4, 0, 0, 0, -1, -1, 2, 4, 4, 4, 4, -4, -4, 1, 2, -3, -3, -3, -4,
          -4, 1, 2, -3, -3, -3
        },
        e,
        "repl2");
    double[] reflected = {
      -1, -3, 1, 0, 1, -3, -1, -3, -2, 2, -1, -3, -1, 2, -2, 2, -4, 3, -3, 3, -3, 3, -4, 3, 0, -4,
      -2, -2, -2, -4, 0, -4, 4, 4, 2, -1, 2, 4, 4, 4, -3, 2, 1, -4, 1, 2, -3, 2
    };
    assertValues(reflected, e, "refl1");
    assertValues(reflected, e, "padded");
    assertValues(
        new double[] {
          -4, -4, 1, 1, 1, 1, -4, -4, 1, 1, 1, 1, -1, -1, 0, 0, 4, 4, -1, -1, 0, 0, 4, 4
        },
        e,
        "up");
  }

  @Test
  void batchNormInTrainingUsesTheBatchStatisticsAndMovesTheRunningOnes() {
    Graph g =
        batchNormInputs()
            .tuple(
                "bn",
                "aten._native_batch_norm_legit_functional.default",
                List.of(
                    type("float64", 2, 3, 2, 2),
                    type("float64", 3),
                    type("float64", 3),
                    type("float64", 3),
                    type("float64", 3)),
                ref("x"),
                ref("w"),
                ref("b"),
                ref("rm"),
                ref("rv"),
                true,
                0.1,
                1e-5)
            .item("y", "bn", 0, type("float64", 2, 3, 2, 2))
            .item("mean", "bn", 1, type("float64", 3))
            .item("rstd", "bn", 2, type("float64", 3))
            .item("rm2", "bn", 3, type("float64", 3))
            .item("rv2", "bn", 4, type("float64", 3))
            .build("y", "mean", "rstd", "rm2", "rv2");
    Evaluation e = evaluateBatchNorm(g);
    assertValues(
        new double[] {
          -2.459180171940014,
          0.8287977968822238,
          0.8287977968822238,
          -0.4863933906466713,
          0.1825740641190532,
          1.6431665770714787,
          0.912870320595266,
          -0.912870320595266,
          2.3750440479498485,
          2.3750440479498485,
          0.9083303968033434,
          1.641687222376596,
          2.801584578175566,
          2.143988984411119,
          2.801584578175566,
          -2.459180171940014,
          0.1825740641190532,
          -1.2780184488333723,
          0.5477221923571596,
          -1.2780184488333723,
          0.17497357123009083,
          0.9083303968033434,
          0.17497357123009083,
          -0.5583832543431617
        },
        e,
        "y");
    assertValues(new double[] {0.5, -0.5, 1.875}, e, "mean");
    assertValues(
        new double[] {0.32879779688222377, 0.36514812823810644, 0.7333568255732525}, e, "rstd");
    assertValues(new double[] {0.9500000000000001, -0.9500000000000001, 0.6375}, e, "rm2");
    assertValues(new double[] {4.6571428571428575, 1.7571428571428571, 0.4375}, e, "rv2");
  }

  @Test
  void diagonalTakesEntriesAlongOffsetDiagonalsAsALastDim() {
    Graph g =
        inputs()
            .call("d0", "aten.diagonal.default", type("float32", 2, 3), ref("x"), 0, 1, 2)
            .call("d1", "aten.diagonal.default", type("float32", 2, 3), ref("x"), 1, 1, 2)
            .call("dm1", "aten.diagonal.default", type("float32", 2, 3), ref("x"), -1, 2, 1)
            .call("d02", "aten.diagonal.default", type("float32", 3, 2), ref("x"), 0, 0, 2)
            .build("d0", "d1", "dm1", "d02");
    Evaluation e = evaluate(g);
    assertValues(new double[] {0, -1, 3, -2, 2, 2}, e, "d0");
    assertValues(new double[] {1, 2, -4, -2, 4, -3}, e, "d1");
    assertValues(new double[] {1, 2, -4, -2, 4, -3}, e, "dm1");
    assertValues(new double[] {0, -2, -3, 2, 3, 1}, e, "d02");
  }
}
