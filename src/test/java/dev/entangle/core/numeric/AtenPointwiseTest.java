package dev.entangle.core.numeric;

import static dev.entangle.eval.Graphs.ref;
import static dev.entangle.eval.Graphs.type;
import static dev.entangle.eval.Tensors.BOOL;
import static dev.entangle.eval.Tensors.F16;
import static dev.entangle.eval.Tensors.F32;
import static dev.entangle.eval.Tensors.assertTensor;
import static dev.entangle.eval.Tensors.f32;
import static dev.entangle.eval.Tensors.shape;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.entangle.core.OpTable;
import dev.entangle.core.semantics.Elementwise;
import dev.entangle.eval.Evaluation;
import dev.entangle.eval.Graphs;
import dev.entangle.eval.LoweredEvaluator;
import dev.entangle.eval.Value;
import dev.entangle.eval.WorkBudget;
import dev.entangle.graph.Graph;
import java.util.Map;
import java.util.function.DoubleUnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The element-wise ATen operators the core language keeps as ew1/ew2, evaluated through the
 * lowering of a graph node, so that their arguments come from the node as written.
 */
class AtenPointwiseTest {
  private static final double NAN = Double.NaN;
  private static final Tensor X = f32(shape(4), -2, -0.5, 0.5, 2);
  private static final Tensor G = f32(shape(4), 1, 2, 3, 4);

  /** The value of {@code y = target(args)} in a graph with float32 inputs x and g of shape [4]. */
  private static Value value(
      String target, String dtype, Map<String, Object> kwargs, Object... args) {
    Graph gs =
        new Graphs()
            .input("x", "float32", 4)
            .input("g", "float32", 4)
            .kwargs(
                kwargs.entrySet().stream()
                    .flatMap(e -> Stream.of(e.getKey(), e.getValue()))
                    .toArray())
            .call("y", target, type(dtype, 4), args)
            .build("y");
    Evaluation e =
        new LoweredEvaluator(new OpTable(), WorkBudget.defaults())
            .evaluate(gs, Map.of("x", X, "g", G));
    return e.value(-1, "y");
  }

  private static Tensor eval(String target, Object... args) {
    return ((Value.Known) value(target, "float32", Map.of(), args)).tensor();
  }

  private static Tensor eval(String target, Map<String, Object> kwargs, Object... args) {
    return ((Value.Known) value(target, "float32", kwargs, args)).tensor();
  }

  private static double[] map(Tensor t, DoubleUnaryOperator f) {
    double[] v = t.values();
    for (int i = 0; i < v.length; i++) {
      v[i] = f.applyAsDouble(v[i]);
    }
    return v;
  }

  @Test
  void functionsOfOneTensor() {
    assertTensor(
        eval("aten.erf.default", ref("x")),
        F32,
        shape(4),
        -0.9953222650189527,
        -0.5204998778130465,
        0.5204998778130465,
        0.9953222650189527);
    assertTensor(eval("aten.sin.default", ref("x")), F32, shape(4), map(X, Math::sin));
    assertTensor(eval("aten.cos.default", ref("x")), F32, shape(4), map(X, Math::cos));
    assertTensor(eval("aten.floor.default", ref("x")), F32, shape(4), -2, -1, 0, 2);
    assertTensor(eval("aten.ceil.default", ref("x")), F32, shape(4), -2, -0.0, 1, 2);
    assertTensor(eval("aten.trunc.default", ref("x")), F32, shape(4), -2, -0.0, 0, 2);
    assertTensor(eval("aten.round.default", ref("x")), F32, shape(4), -2, -0.0, 0, 2);
    assertTensor(eval("aten.sign.default", ref("x")), F32, shape(4), -1, -1, 1, 1);
    assertTensor(eval("aten.square.default", ref("x")), F32, shape(4), 4, 0.25, 0.25, 4);
    assertTensor(eval("aten.log1p.default", ref("x")), F32, shape(4), map(X, Math::log1p));
    assertTensor(eval("aten.expm1.default", ref("x")), F32, shape(4), map(X, Math::expm1));
  }

  /**
   * Inverse trigonometric, hyperbolic and base-10 functions against the values torch 2.15.0
   * computes for x = [-2, -0.5, 0.5, 2] in float32 (NaN outside the domain).
   */
  @Test
  void moreElementwiseFunctionsMatchTorch() {
    Map<String, double[]> torch =
        Map.of(
            "acos", new double[] {NAN, 2.094395160675049, 1.0471975803375244, NAN},
            "acosh", new double[] {NAN, NAN, NAN, 1.316957950592041},
            "asin", new double[] {NAN, -0.5235987901687622, 0.5235987901687622, NAN},
            "asinh",
                new double[] {
                  -1.4436354637145996, -0.4812118411064148, 0.4812118411064148, 1.4436354637145996
                },
            "atan",
                new double[] {
                  -1.1071487665176392, -0.46364760398864746, 0.46364760398864746, 1.1071487665176392
                },
            "atanh", new double[] {NAN, -0.5493061542510986, 0.5493061542510986, NAN},
            "cosh",
                new double[] {
                  3.7621958255767822, 1.1276259422302246, 1.1276259422302246, 3.7621958255767822
                },
            "sinh",
                new double[] {
                  -3.6268603801727295, -0.5210952758789062, 0.5210952758789062, 3.6268603801727295
                },
            "log10", new double[] {NAN, NAN, -0.3010300099849701, 0.3010300099849701});
    torch.forEach(
        (f, want) -> {
          double[] got = eval("aten." + f + ".default", ref("x")).values();
          for (int i = 0; i < want.length; i++) {
            double w = want[i];
            double g = got[i];
            String what = f + "(" + X.values()[i] + ")";
            if (Double.isNaN(w)) {
              assertEquals(Double.NaN, g, what);
            } else {
              assertEquals(w, g, 1e-6 * Math.max(1, Math.abs(w)), what);
            }
          }
        });
  }

  @Test
  void xlasElementwiseOpcodesComputeTheirAtenFunctions() {
    assertTensor(eval("xla.sine", ref("x")), F32, shape(4), map(X, Math::sin));
    assertTensor(eval("xla.cosine", ref("x")), F32, shape(4), map(X, Math::cos));
    assertTensor(
        eval("xla.tan", ref("x")),
        F32,
        shape(4),
        2.185039863261519,
        -0.5463024898437905,
        0.5463024898437905,
        -2.185039863261519);
    assertTensor(eval("xla.floor", ref("x")), F32, shape(4), -2, -1, 0, 2);
    assertTensor(eval("xla.ceil", ref("x")), F32, shape(4), -2, -0.0, 1, 2);
    assertTensor(eval("xla.round_nearest_even", ref("x")), F32, shape(4), -2, -0.0, 0, 2);
    assertTensor(eval("xla.sign", ref("x")), F32, shape(4), -1, -1, 1, 1);
    assertTensor(eval("xla.exponential_minus_one", ref("x")), F32, shape(4), map(X, Math::expm1));
    assertTensor(eval("xla.log_plus_one", ref("x")), F32, shape(4), map(X, Math::log1p));
    assertTensor(
        eval("xla.erf", ref("x")),
        F32,
        shape(4),
        -0.9953222650189527,
        -0.5204998778130465,
        0.5204998778130465,
        0.9953222650189527);
  }

  @Test
  void dropoutIsDeterministicPerRateAndElementAndKeepsItsRate() {
    Tensor a = eval("aten.dropout.default", ref("x"), 0.1, true);
    assertTensor(a, F32, shape(4), map(X, v -> v * (1 + 0.5 * Math.sin(13 * v + 0.7)) / 0.9));
    assertTensor(eval("aten.dropout.default", ref("x"), 0.1, true), F32, shape(4), a.values());
    Tensor b = eval("aten.dropout.default", ref("x"), 0.15, true);
    for (int i = 0; i < 4; i++) {
      org.junit.jupiter.api.Assertions.assertNotEquals(a.values()[i], b.values()[i]);
    }
    assertTensor(eval("aten.dropout.default", ref("x"), 0.1, false), F32, shape(4), X.values());
    assertTensor(eval("aten.dropout.default", ref("x"), 1.0, true), F32, shape(4), 0, 0, 0, 0);
  }

  @Test
  void clampWithScalarBoundsGivenEitherWay() {
    assertTensor(eval("aten.clamp.default", ref("x"), -1.0, 1.0), F32, shape(4), -1, -0.5, 0.5, 1);
    assertTensor(
        eval("aten.clamp.default", Map.of("max", 0.0), ref("x")), F32, shape(4), -2, -0.5, 0, 0);
    assertTensor(eval("aten.clamp_min.default", ref("x"), 0), F32, shape(4), 0, 0, 0.5, 2);
    assertTensor(eval("aten.hardtanh.default", ref("x")), F32, shape(4), -1, -0.5, 0.5, 1);
  }

  @Test
  void clampWithATensorBoundIsAFunctionOfTwoTensors() {
    assertTensor(eval("aten.clamp.Tensor", ref("x"), ref("g"), null), F32, shape(4), 1, 2, 3, 4);
  }

  @Test
  void activationsWithTheirDefaults() {
    assertTensor(eval("aten.leaky_relu.default", ref("x")), F32, shape(4), -0.02, -0.005, 0.5, 2);
    assertTensor(eval("aten.leaky_relu.default", ref("x"), 0.5), F32, shape(4), -1, -0.25, 0.5, 2);
    assertTensor(
        eval("aten.softplus.default", ref("x")),
        F32,
        shape(4),
        map(X, v -> Math.log1p(Math.exp(v))));
    assertTensor(
        eval("aten.elu.default", ref("x")),
        F32,
        shape(4),
        Math.expm1(-2),
        Math.expm1(-0.5),
        0.5,
        2);
    assertTensor(
        eval("aten.hardsigmoid.default", ref("x")),
        F32,
        shape(4),
        1 / 6.0,
        2.5 / 6,
        3.5 / 6,
        5 / 6.0);
  }

  @Test
  void remainderFollowsTheDivisorsSignAndFmodTheDividends() {
    assertTensor(eval("aten.remainder.Scalar", ref("x"), 1.5), F32, shape(4), 1, 1, 0.5, 0.5);
    assertTensor(eval("aten.fmod.Scalar", ref("x"), 1.5), F32, shape(4), -0.5, -0.5, 0.5, 0.5);
    assertTensor(
        eval("aten.atan2.default", ref("x"), ref("g")),
        F32,
        shape(4),
        Math.atan2(-2, 1),
        Math.atan2(-0.5, 2),
        Math.atan2(0.5, 3),
        Math.atan2(2, 4));
  }

  @Test
  void gradientsOfActivations() {
    // d/dx gelu(x) = Phi(x) + x phi(x), as torch.autograd gives it in float64
    assertTensor(
        eval("aten.gelu_backward.default", ref("g"), ref("x")),
        F32,
        shape(4),
        1 * -0.08523180107819692,
        2 * 0.13250487534383712,
        3 * 0.8674951246561629,
        4 * 1.085231801078197);
    Tensor tanh =
        eval("aten.gelu_backward.default", Map.of("approximate", "tanh"), ref("g"), ref("x"));
    double h = 1e-6;
    for (int i = 0; i < 4; i++) {
      double x = X.at(i);
      double slope = (Elementwise.geluTanh(x + h) - Elementwise.geluTanh(x - h)) / (2 * h);
      assertEquals(G.at(i) * slope, tanh.at(i), 1e-8);
    }
    double s = Elementwise.sigmoid(2);
    assertEquals(
        4 * s * (1 + 2 * (1 - s)),
        eval("aten.silu_backward.default", ref("g"), ref("x")).at(3),
        1e-15);
    assertTensor(
        eval("aten.sigmoid_backward.default", ref("g"), ref("x")),
        F32,
        shape(4),
        1 * 3 * -2,
        2 * 1.5 * -0.5,
        3 * 0.5 * 0.5,
        4 * -1 * 2);
    assertTensor(
        eval("aten.tanh_backward.default", ref("g"), ref("x")), F32, shape(4), -3, 1.5, 2.25, -12);
    assertTensor(
        eval("aten.threshold_backward.default", ref("g"), ref("x"), 0), F32, shape(4), 0, 0, 3, 4);
    assertTensor(
        eval("aten.hardtanh_backward.default", ref("g"), ref("x"), -1.0, 1.0),
        F32,
        shape(4),
        0,
        2,
        3,
        0);
  }

  @Test
  void predicatesGiveBooleans() {
    Value v = value("aten.isnan.default", "bool", Map.of(), ref("x"));
    assertTensor(((Value.Known) v).tensor(), BOOL, shape(4), 0, 0, 0, 0);
  }

  @Test
  void nanToNumUsesTheLargestValueOfTheResultDtype() {
    Graph gs =
        new Graphs()
            .input("x", "float16", 3)
            .call("y", "aten.nan_to_num.default", type("float16", 3), ref("x"))
            .build("y");
    Evaluation e =
        new LoweredEvaluator(new OpTable(), WorkBudget.defaults())
            .evaluate(
                gs,
                Map.of(
                    "x",
                    Tensor.of(
                        F16, shape(3), NAN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY)));
    assertTensor(e.tensor(-1, "y").orElseThrow(), F16, shape(3), 0, 65504, -65504);
  }

  @Test
  void anUnknownOperatorIsNamedNotGuessed() {
    Value v = value("aten.special_bessel_j0.default", "float32", Map.of(), ref("x"));
    Value.Unavailable u = assertInstanceOf(Value.Unavailable.class, v);
    assertEquals(
        "y (aten.special_bessel_j0.default): the operator aten.special_bessel_j0.default has no numeric semantics in the evaluator"
            + " (aten.special_bessel_j0.default($0))",
        u.reason());
  }
}
