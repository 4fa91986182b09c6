package dev.entangle.core.numeric;

import dev.entangle.core.OpTable;
import dev.entangle.core.semantics.Elementwise;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The element-wise ATen operators that the core language keeps as {@code ew1}/{@code ew2}, named by
 * their target and non-tensor arguments ({@link OpTable#opaqueArguments}). Each is a function of
 * the elements at one position of its one or two tensor operands; arguments are bound to PyTorch's
 * parameter names by position, then by keyword, with PyTorch's defaults.
 */
public final class AtenPointwise {
  /** A function of the elements {@code a} (operand 0) and {@code b} (operand 1). */
  public interface Fn {
    double apply(double a, double b);
  }

  /** A bound argument: an operand's element or a constant. */
  private interface Param {
    double of(double a, double b);
  }

  private record Signature(List<String> params, Map<String, Object> defaults) {}

  private static final Map<String, Signature> SIGNATURES = new HashMap<>();

  static {
    for (String f :
        List.of(
            "erf",
            "erfc",
            "sin",
            "cos",
            "tan",
            "isfinite",
            "acos",
            "acosh",
            "asin",
            "asinh",
            "atan",
            "atanh",
            "cosh",
            "sinh",
            "log10",
            "log1p",
            "expm1",
            "floor",
            "ceil",
            "sign",
            "trunc",
            "square",
            "log2",
            "exp2",
            "isnan",
            "isinf",
            "mish",
            "hardswish",
            "hardsigmoid")) {
      declare(f, List.of("self"), Map.of());
    }
    declare("round", List.of("self", "decimals"), Map.of("decimals", 0L));
    declare(
        "gelu_backward",
        List.of("grad_output", "self", "approximate"),
        Map.of("approximate", "none"));
    declare("silu_backward", List.of("grad_output", "self"), Map.of());
    declare("sigmoid_backward", List.of("grad_output", "output"), Map.of());
    declare("tanh_backward", List.of("grad_output", "output"), Map.of());
    declare("threshold_backward", List.of("grad_output", "self", "threshold"), Map.of());
    declare("native_dropout_backward", List.of("grad_output", "mask", "scale"), Map.of());
    declare("native_dropout", List.of("input", "p", "train"), Map.of("train", true));
    declare("hardtanh_backward", List.of("grad_output", "self", "min_val", "max_val"), Map.of());
    declare(
        "hardtanh", List.of("self", "min_val", "max_val"), Map.of("min_val", -1.0, "max_val", 1.0));
    declare(
        "elu",
        List.of("self", "alpha", "scale", "input_scale"),
        Map.of("alpha", 1.0, "scale", 1.0, "input_scale", 1.0));
    declare("leaky_relu", List.of("self", "negative_slope"), Map.of("negative_slope", 0.01));
    declare(
        "softplus", List.of("self", "beta", "threshold"), Map.of("beta", 1.0, "threshold", 20.0));
    declare("clamp", List.of("self", "min", "max"), Map.of());
    declare("clamp_min", List.of("self", "min"), Map.of());
    declare("clamp_max", List.of("self", "max"), Map.of());
    declare("remainder", List.of("self", "other"), Map.of());
    declare("fmod", List.of("self", "other"), Map.of());
    declare("atan2", List.of("self", "other"), Map.of());
    declare("nan_to_num", List.of("self", "nan", "posinf", "neginf"), Map.of());
    declare("logical_xor", List.of("self", "other"), Map.of());
  }

  /**
   * XLA's element-wise opcodes that compute an ATen function exactly ({@code xla.sine} is {@code
   * aten.sin}; {@code round_nearest_even} rounds half to even, as {@code aten.round} does).
   */
  private static final Map<String, String> XLA =
      Map.ofEntries(
          Map.entry("xla.sine", "aten.sin"),
          Map.entry("xla.cosine", "aten.cos"),
          Map.entry("xla.tan", "aten.tan"),
          Map.entry("xla.floor", "aten.floor"),
          Map.entry("xla.ceil", "aten.ceil"),
          Map.entry("xla.sign", "aten.sign"),
          Map.entry("xla.erf", "aten.erf"),
          Map.entry("xla.exponential_minus_one", "aten.expm1"),
          Map.entry("xla.log_plus_one", "aten.log1p"),
          Map.entry("xla.round_nearest_even", "aten.round"),
          Map.entry("xla.is_finite", "aten.isfinite"));

  private static void declare(String name, List<String> params, Map<String, Object> defaults) {
    SIGNATURES.put("aten." + name, new Signature(params, defaults));
  }

  private AtenPointwise() {}

  /**
   * The function of the operator with this target (e.g. {@code aten.gelu_backward.default}) and
   * arguments, whose result has dtype {@code dtype}.
   */
  public static Fn of(String target, OpTable.Arguments args, int dtype) {
    String base = baseName(target);
    base = XLA.getOrDefault(base, base);
    Signature sig = SIGNATURES.get(base);
    if (sig == null) {
      throw new EvalException(
          "the element-wise operator " + target + " has no numeric semantics in the evaluator");
    }
    Map<String, Object> bound = bind(target, sig, args);
    Binder b = new Binder(target, bound);
    Param x = b.param(sig.params().get(0));
    String name = base.substring("aten.".length());
    return switch (name) {
      case "erf" -> (p, q) -> SpecialFunctions.erf(x.of(p, q));
      case "erfc" -> (p, q) -> SpecialFunctions.erfc(x.of(p, q));
      case "sin" -> (p, q) -> Math.sin(x.of(p, q));
      case "cos" -> (p, q) -> Math.cos(x.of(p, q));
      case "tan" -> (p, q) -> Math.tan(x.of(p, q));
      case "acos" -> (p, q) -> Math.acos(x.of(p, q));
      case "asin" -> (p, q) -> Math.asin(x.of(p, q));
      case "atan" -> (p, q) -> Math.atan(x.of(p, q));
      case "cosh" -> (p, q) -> Math.cosh(x.of(p, q));
      case "sinh" -> (p, q) -> Math.sinh(x.of(p, q));
      case "log10" -> (p, q) -> Math.log10(x.of(p, q));
      case "acosh" -> (p, q) -> acosh(x.of(p, q));
      case "asinh" -> (p, q) -> asinh(x.of(p, q));
      case "atanh" -> (p, q) -> atanh(x.of(p, q));
      case "isfinite" -> (p, q) -> Double.isFinite(x.of(p, q)) ? 1 : 0;
      case "log1p" -> (p, q) -> Math.log1p(x.of(p, q));
      case "expm1" -> (p, q) -> Math.expm1(x.of(p, q));
      case "floor" -> (p, q) -> Math.floor(x.of(p, q));
      case "ceil" -> (p, q) -> Math.ceil(x.of(p, q));
      case "trunc" -> (p, q) -> trunc(x.of(p, q));
      case "sign" -> (p, q) -> sign(x.of(p, q));
      case "square" -> (p, q) -> x.of(p, q) * x.of(p, q);
      case "log2" -> (p, q) -> Math.log(x.of(p, q)) / Math.log(2);
      case "exp2" -> (p, q) -> Math.pow(2, x.of(p, q));
      case "isnan" -> (p, q) -> Double.isNaN(x.of(p, q)) ? 1 : 0;
      case "isinf" -> (p, q) -> Double.isInfinite(x.of(p, q)) ? 1 : 0;
      case "round" -> round(x, b.number("decimals"));
      case "mish" -> (p, q) -> mish(x.of(p, q));
      case "hardswish" -> (p, q) -> x.of(p, q) * relu6(x.of(p, q) + 3) / 6;
      case "hardsigmoid" -> (p, q) -> relu6(x.of(p, q) + 3) / 6;
      case "gelu_backward" -> geluBackward(x, b.param("self"), b.string("approximate"), target);
      case "silu_backward" -> siluBackward(x, b.param("self"));
      case "sigmoid_backward" -> {
        Param y = b.param("output");
        yield (p, q) -> x.of(p, q) * (1 - y.of(p, q)) * y.of(p, q);
      }
      case "tanh_backward" -> {
        Param y = b.param("output");
        yield (p, q) -> x.of(p, q) * (1 - y.of(p, q) * y.of(p, q));
      }
      case "threshold_backward" -> {
        Param self = b.param("self");
        Param t = b.param("threshold");
        yield (p, q) -> self.of(p, q) <= t.of(p, q) ? 0 : x.of(p, q);
      }
      case "native_dropout" -> dropout(x, b.number("p"), b.number("train") != 0);
      case "native_dropout_backward" -> {
        Param mask = b.param("mask");
        Param scale = b.param("scale");
        yield (p, q) -> x.of(p, q) * mask.of(p, q) * scale.of(p, q);
      }
      case "hardtanh_backward" -> {
        Param self = b.param("self");
        Param lo = b.param("min_val");
        Param hi = b.param("max_val");
        yield (p, q) ->
            self.of(p, q) <= lo.of(p, q) || self.of(p, q) >= hi.of(p, q) ? 0 : x.of(p, q);
      }
      case "hardtanh" -> clamp(x, b.param("min_val"), b.param("max_val"));
      case "clamp" -> clamp(x, b.optional("min"), b.optional("max"));
      case "clamp_min" -> clamp(x, b.param("min"), null);
      case "clamp_max" -> clamp(x, null, b.param("max"));
      case "elu" -> {
        Param alpha = b.param("alpha");
        Param scale = b.param("scale");
        Param inScale = b.param("input_scale");
        yield (p, q) -> {
          double v = x.of(p, q);
          return v > 0
              ? scale.of(p, q) * v
              : scale.of(p, q) * alpha.of(p, q) * Math.expm1(v * inScale.of(p, q));
        };
      }
      case "leaky_relu" -> {
        Param slope = b.param("negative_slope");
        yield (p, q) -> x.of(p, q) > 0 ? x.of(p, q) : x.of(p, q) * slope.of(p, q);
      }
      case "softplus" -> {
        Param beta = b.param("beta");
        Param threshold = b.param("threshold");
        yield (p, q) -> {
          double bx = beta.of(p, q) * x.of(p, q);
          return bx > threshold.of(p, q) ? x.of(p, q) : Math.log1p(Math.exp(bx)) / beta.of(p, q);
        };
      }
      case "remainder" -> {
        Param y = b.param("other");
        yield (p, q) -> {
          double u = x.of(p, q);
          double v = y.of(p, q);
          return u - Math.floor(u / v) * v;
        };
      }
      case "fmod" -> {
        Param y = b.param("other");
        yield (p, q) -> x.of(p, q) % y.of(p, q);
      }
      case "atan2" -> {
        Param y = b.param("other");
        yield (p, q) -> Math.atan2(x.of(p, q), y.of(p, q));
      }
      case "logical_xor" -> {
        Param y = b.param("other");
        yield (p, q) -> (x.of(p, q) != 0) != (y.of(p, q) != 0) ? 1 : 0;
      }
      case "nan_to_num" -> nanToNum(x, b, dtype);
      default -> throw new IllegalStateException("no function for " + name);
    };
  }

  private static String baseName(String target) {
    int first = target.indexOf('.');
    int last = target.lastIndexOf('.');
    return first >= 0 && last > first ? target.substring(0, last) : target;
  }

  /**
   * Binds positional arguments to parameters in order and keywords by name; absent ones take
   * defaults.
   */
  private static Map<String, Object> bind(String target, Signature sig, OpTable.Arguments args) {
    Map<String, Object> bound = new HashMap<>(sig.defaults());
    List<Object> pos = args.positional();
    if (pos.size() > sig.params().size()) {
      throw new EvalException(
          target
              + " has "
              + pos.size()
              + " positional arguments; the evaluator knows "
              + sig.params());
    }
    for (int i = 0; i < pos.size(); i++) {
      bound.put(sig.params().get(i), pos.get(i));
    }
    for (var e : args.keywords().entrySet()) {
      if (!sig.params().contains(e.getKey())) {
        throw new EvalException(
            target + " has an argument '" + e.getKey() + "' the evaluator does not know");
      }
      bound.put(e.getKey(), e.getValue());
    }
    return bound;
  }

  /** Turns bound values into parameters. */
  private record Binder(String target, Map<String, Object> bound) {
    Param param(String name) {
      Param p = optional(name);
      if (p == null) {
        throw new EvalException(target + " needs a value for '" + name + "'");
      }
      return p;
    }

    Param optional(String name) {
      Object v = bound.get(name);
      if (v == null) {
        return null;
      }
      if (v instanceof OpTable.Operand o) {
        return o.index() == 0 ? (a, b) -> a : (a, b) -> b;
      }
      double c = number(name);
      return (a, b) -> c;
    }

    double number(String name) {
      Object v = bound.get(name);
      if (v instanceof Number n) {
        return n.doubleValue();
      }
      if (v instanceof Boolean f) {
        return f ? 1 : 0;
      }
      throw new EvalException(target + ": argument '" + name + "' must be a number, got " + v);
    }

    String string(String name) {
      Object v = bound.get(name);
      if (v instanceof String s) {
        return s;
      }
      throw new EvalException(target + ": argument '" + name + "' must be a string, got " + v);
    }
  }

  private static Fn geluBackward(Param grad, Param self, String approximate, String target) {
    return switch (approximate) {
      case "none" -> (p, q) -> grad.of(p, q) * Elementwise.geluGrad(self.of(p, q));
      case "tanh" -> (p, q) -> grad.of(p, q) * Elementwise.geluTanhGrad(self.of(p, q));
      default -> throw new EvalException(target + ": unknown approximation '" + approximate + "'");
    };
  }

  /**
   * Dropout in training with rate {@code rate} as the numbers see it: no random mask (the checker
   * assumes the masks of G_s and G_d agree), but a smooth stand-in that depends only on the rate
   * and the element, {@code v (1 + sin(13 v + 7 rate) / 2) / (1 - rate)}: equal rates on equal
   * inputs give equal numbers, inputs that differ by rounding give outputs that differ by rounding,
   * and two rates give different numbers. Out of training it is the identity; rate 1 gives zeros.
   */
  private static Fn dropout(Param x, double rate, boolean train) {
    if (!train || rate == 0) {
      return (p, q) -> x.of(p, q);
    }
    if (rate >= 1) {
      return (p, q) -> 0;
    }
    return (p, q) -> {
      double v = x.of(p, q);
      return v * (1 + 0.5 * Math.sin(13 * v + 7 * rate)) / (1 - rate);
    };
  }

  private static Fn siluBackward(Param grad, Param self) {
    return (p, q) -> {
      double v = self.of(p, q);
      double s = Elementwise.sigmoid(v);
      return grad.of(p, q) * s * (1 + v * (1 - s));
    };
  }

  /** {@code min(max(x, lo), hi)}, NaN kept; either bound may be absent. */
  private static Fn clamp(Param x, Param lo, Param hi) {
    return (p, q) -> {
      double v = x.of(p, q);
      if (Double.isNaN(v)) {
        return v;
      }
      if (lo != null) {
        v = Math.max(v, lo.of(p, q));
      }
      if (hi != null) {
        v = Math.min(v, hi.of(p, q));
      }
      return v;
    };
  }

  private static Fn round(Param x, double decimals) {
    double scale = Math.pow(10, decimals);
    return decimals == 0
        ? (p, q) -> Math.rint(x.of(p, q))
        : (p, q) -> Math.rint(x.of(p, q) * scale) / scale;
  }

  private static Fn nanToNum(Param x, Binder b, int dtype) {
    double max = Rounding.maxFinite(dtype);
    double nan = b.bound().get("nan") == null ? 0 : b.number("nan");
    double pos = b.bound().get("posinf") == null ? max : b.number("posinf");
    double neg = b.bound().get("neginf") == null ? -max : b.number("neginf");
    return (p, q) -> {
      double v = x.of(p, q);
      return Double.isNaN(v)
          ? nan
          : v == Double.POSITIVE_INFINITY ? pos : v == Double.NEGATIVE_INFINITY ? neg : v;
    };
  }

  private static double acosh(double v) {
    return v < 1 ? Double.NaN : Math.log(v + Math.sqrt(v * v - 1));
  }

  private static double asinh(double v) {
    double a = Math.abs(v);
    return Math.copySign(Math.log(a + Math.sqrt(a * a + 1)), v);
  }

  private static double atanh(double v) {
    return Math.abs(v) > 1 ? Double.NaN : 0.5 * Math.log1p(2 * v / (1 - v));
  }

  private static double trunc(double v) {
    return v < 0 ? Math.ceil(v) : Math.floor(v);
  }

  private static double sign(double v) {
    return Double.isNaN(v) ? v : Math.signum(v) + 0.0;
  }

  private static double relu6(double v) {
    return Math.min(Math.max(v, 0), 6);
  }

  private static double mish(double v) {
    double sp = v > 20 ? v : Math.log1p(Math.exp(v));
    return v * Math.tanh(sp);
  }

  /** Whether the evaluator knows the operator with this target. */
  public static boolean knows(String target) {
    String base = baseName(target);
    return SIGNATURES.containsKey(XLA.getOrDefault(base, base));
  }
}
