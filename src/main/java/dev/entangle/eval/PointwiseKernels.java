package dev.entangle.eval;

import dev.entangle.core.Dtype;
import dev.entangle.core.Op;
import java.util.function.DoubleBinaryOperator;
import java.util.function.DoubleUnaryOperator;

/**
 * Element-wise operators of the core language: unary functions, casts, arithmetic, comparisons,
 * logic, {@code where} and the element-wise reductions {@code sumn}, {@code maxn}, {@code minn}.
 * Operands already have the result's shape (the lowering broadcasts with {@code expand}).
 */
final class PointwiseKernels {
  private static final double SQRT_2_OVER_PI = Math.sqrt(2 / Math.PI);
  private static final double GELU_KAPPA = 0.044715;

  private PointwiseKernels() {}

  static double[] map(double[] x, DoubleUnaryOperator f) {
    double[] out = new double[x.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = f.applyAsDouble(x[i]);
    }
    return out;
  }

  static double[] zip(double[] x, double[] y, DoubleBinaryOperator f) {
    double[] out = new double[x.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = f.applyAsDouble(x[i], y[i]);
    }
    return out;
  }

  /** A unary core operator on an operand of dtype {@code dtype} (CAST and EW1 excluded). */
  static DoubleUnaryOperator unary(Op op, long[] attrs, int dtype) {
    boolean integral = Rounding.isIntegral(dtype);
    return switch (op) {
      case NEG -> v -> -v;
      case EXP -> Math::exp;
      case LOG -> Math::log;
      case RELU -> v -> v > 0 || Double.isNaN(v) ? v : 0;
      case GELU ->
          attrs[0] != 0 ? PointwiseKernels::geluTanh : v -> v * SpecialFunctions.normalCdf(v);
      case SILU -> v -> v * sigmoid(v);
      case TANH -> Math::tanh;
      case SIGMOID -> PointwiseKernels::sigmoid;
      case RSQRT -> v -> 1 / Math.sqrt(v);
      case SQRT -> Math::sqrt;
      case ABS -> Math::abs;
      case RECIPROCAL -> v -> 1 / v;
      case NOT -> dtype == Dtype.BOOL.code() || !integral ? v -> v == 0 ? 1 : 0 : v -> ~(long) v;
      default -> throw new IllegalArgumentException(op + " is not a unary operator");
    };
  }

  /** A binary core operator (EW2 excluded) on operands of dtype {@code dtype}. */
  static DoubleBinaryOperator binary(Op op, int dtype) {
    boolean bitwise = Rounding.isIntegral(dtype) && dtype != Dtype.BOOL.code();
    return switch (op) {
      case ADD -> Double::sum;
      case SUB -> (a, b) -> a - b;
      case MUL -> (a, b) -> a * b;
      case DIV -> (a, b) -> a / b;
      case POW -> Math::pow;
      case MAXIMUM -> Math::max;
      case MINIMUM -> Math::min;
      case EQ -> (a, b) -> a == b ? 1 : 0;
      case NE -> (a, b) -> a != b ? 1 : 0;
      case LT -> (a, b) -> a < b ? 1 : 0;
      case LE -> (a, b) -> a <= b ? 1 : 0;
      case GT -> (a, b) -> a > b ? 1 : 0;
      case GE -> (a, b) -> a >= b ? 1 : 0;
      case AND -> bitwise ? (a, b) -> (long) a & (long) b : (a, b) -> a != 0 && b != 0 ? 1 : 0;
      case OR -> bitwise ? (a, b) -> (long) a | (long) b : (a, b) -> a != 0 || b != 0 ? 1 : 0;
      case XOR -> bitwise ? (a, b) -> (long) a ^ (long) b : (a, b) -> (a != 0) != (b != 0) ? 1 : 0;
      default -> throw new IllegalArgumentException(op + " is not a binary operator");
    };
  }

  /** {@code where(cond, a, b)}. */
  static double[] where(double[] cond, double[] a, double[] b) {
    double[] out = new double[cond.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = cond[i] != 0 ? a[i] : b[i];
    }
    return out;
  }

  /** The element-wise sum, max or min of operands of one shape, in operand order. */
  static double[] combine(Op op, double[][] xs) {
    double[] out = xs[0].clone();
    for (int k = 1; k < xs.length; k++) {
      double[] x = xs[k];
      for (int i = 0; i < out.length; i++) {
        out[i] =
            switch (op) {
              case SUMN -> out[i] + x[i];
              case MAXN -> Math.max(out[i], x[i]);
              case MINN -> Math.min(out[i], x[i]);
              default ->
                  throw new IllegalArgumentException(op + " is not an element-wise reduction");
            };
      }
    }
    return out;
  }

  /** Conversion of every element to {@code dtype} ({@link Rounding}). */
  static double[] cast(double[] x, int dtype) {
    double[] out = new double[x.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = Rounding.to(dtype, x[i]);
    }
    return out;
  }

  static double sigmoid(double v) {
    if (v >= 0) {
      return 1 / (1 + Math.exp(-v));
    }
    double e = Math.exp(v);
    return e / (1 + e);
  }

  /** GELU with PyTorch's tanh approximation. */
  static double geluTanh(double v) {
    return 0.5 * v * (1 + Math.tanh(SQRT_2_OVER_PI * (v + GELU_KAPPA * v * v * v)));
  }

  /** The derivative of exact GELU. */
  static double geluGrad(double v) {
    return SpecialFunctions.normalCdf(v) + v * SpecialFunctions.normalPdf(v);
  }

  /** The derivative of tanh-approximated GELU, as PyTorch's gelu_backward computes it. */
  static double geluTanhGrad(double v) {
    double inner = SQRT_2_OVER_PI * (v + GELU_KAPPA * v * v * v);
    double t = Math.tanh(inner);
    double left = 0.5 * v;
    double right = 1 + t;
    return 0.5 * right + left * (1 - t * t) * SQRT_2_OVER_PI * (1 + 3 * GELU_KAPPA * v * v);
  }
}
