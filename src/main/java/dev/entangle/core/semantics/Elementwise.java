package dev.entangle.core.semantics;

import static dev.entangle.core.semantics.ShapeChecks.*;

import dev.entangle.core.Dtype;
import dev.entangle.core.Op;
import dev.entangle.core.OpTable;
import dev.entangle.core.Semantics;
import dev.entangle.core.ShapeException;
import dev.entangle.core.TypeInfo;
import dev.entangle.core.numeric.AtenPointwise;
import dev.entangle.core.numeric.Rounding;
import dev.entangle.core.numeric.SpecialFunctions;
import dev.entangle.core.numeric.Tensor;
import java.util.function.DoubleBinaryOperator;
import java.util.function.DoubleUnaryOperator;

/**
 * Element-wise operators of the core language: unary functions, casts, arithmetic, comparisons,
 * logic, {@code where} and the element-wise reductions {@code sumn}, {@code maxn}, {@code minn}.
 * Operands already have the result's shape (the lowering broadcasts with {@code expand}).
 */
public final class Elementwise implements Semantics {
  /** The family's semantics, named by its operators in {@link Op}. */
  public static final Elementwise SEMANTICS = new Elementwise();

  private static final double SQRT_2_OVER_PI = Math.sqrt(2 / Math.PI);
  private static final double GELU_KAPPA = 0.044715;

  private Elementwise() {}

  public static double[] map(double[] x, DoubleUnaryOperator f) {
    double[] out = new double[x.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = f.applyAsDouble(x[i]);
    }
    return out;
  }

  public static double[] zip(double[] x, double[] y, DoubleBinaryOperator f) {
    double[] out = new double[x.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = f.applyAsDouble(x[i], y[i]);
    }
    return out;
  }

  /** A unary core operator on an operand of dtype {@code dtype} (CAST and EW1 excluded). */
  public static DoubleUnaryOperator unary(Op op, long[] attrs, int dtype) {
    boolean integral = Rounding.isIntegral(dtype);
    return switch (op) {
      case NEG -> v -> -v;
      case EXP -> Math::exp;
      case LOG -> Math::log;
      case RELU -> v -> v > 0 || Double.isNaN(v) ? v : 0;
      case GELU -> attrs[0] != 0 ? Elementwise::geluTanh : v -> v * SpecialFunctions.normalCdf(v);
      case SILU -> v -> v * sigmoid(v);
      case TANH -> Math::tanh;
      case SIGMOID -> Elementwise::sigmoid;
      case RSQRT -> v -> 1 / Math.sqrt(v);
      case SQRT -> Math::sqrt;
      case ABS -> Math::abs;
      case RECIPROCAL -> v -> 1 / v;
      case SCALE -> v -> v * attrs[0] / attrs[1];
      case NOT -> dtype == Dtype.BOOL.code() || !integral ? v -> v == 0 ? 1 : 0 : v -> ~(long) v;
      default -> throw new IllegalArgumentException(op + " is not a unary operator");
    };
  }

  /** A binary core operator (EW2 excluded) on operands of dtype {@code dtype}. */
  public static DoubleBinaryOperator binary(Op op, int dtype) {
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
  public static double[] where(double[] cond, double[] a, double[] b) {
    double[] out = new double[cond.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = cond[i] != 0 ? a[i] : b[i];
    }
    return out;
  }

  /** The element-wise sum, max or min of operands of one shape, in operand order. */
  public static double[] combine(Op op, double[][] xs) {
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
  public static double[] cast(double[] x, int dtype) {
    double[] out = new double[x.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = Rounding.to(dtype, x[i]);
    }
    return out;
  }

  public static double sigmoid(double v) {
    if (v >= 0) {
      return 1 / (1 + Math.exp(-v));
    }
    double e = Math.exp(v);
    return e / (1 + e);
  }

  /** GELU with PyTorch's tanh approximation. */
  public static double geluTanh(double v) {
    return 0.5 * v * (1 + Math.tanh(SQRT_2_OVER_PI * (v + GELU_KAPPA * v * v * v)));
  }

  /** The derivative of exact GELU. */
  public static double geluGrad(double v) {
    return SpecialFunctions.normalCdf(v) + v * SpecialFunctions.normalPdf(v);
  }

  /** The derivative of tanh-approximated GELU, as PyTorch's gelu_backward computes it. */
  public static double geluTanhGrad(double v) {
    double inner = SQRT_2_OVER_PI * (v + GELU_KAPPA * v * v * v);
    double t = Math.tanh(inner);
    double left = 0.5 * v;
    double right = 1 + t;
    return 0.5 * right + left * (1 - t * t) * SQRT_2_OVER_PI * (1 + 3 * GELU_KAPPA * v * v);
  }

  @Override
  public TypeInfo type(Op op, long[] a, TypeInfo[] c, Context context) {
    switch (op.kind) {
      case UNARY:
        if (op == Op.CAST) {
          return TypeInfo.tensor(c[0].shape(), (int) a[0]);
        }
        if (op == Op.EW1) {
          return TypeInfo.tensor(c[0].shape(), context.table().opaqueType((int) a[0]).dtype());
        }
        return TypeInfo.tensor(c[0].shape(), c[0].dtype());
      case BINARY:
      case COMPARE:
        sameShapes(op, c);
        if (op == Op.EW2) {
          return TypeInfo.tensor(c[0].shape(), context.table().opaqueType((int) a[0]).dtype());
        }
        return TypeInfo.tensor(
            c[0].shape(), op.kind == Op.Kind.COMPARE ? Dtype.BOOL.code() : c[0].dtype());
      case TERNARY:
        sameShapes(op, c);
        return TypeInfo.tensor(c[1].shape(), c[1].dtype());
      default:
        if (c.length == 0) {
          throw new ShapeException(op.symbol() + " of nothing");
        }
        sameShapes(op, c);
        return TypeInfo.tensor(c[0].shape(), c[0].dtype());
    }
  }

  @Override
  public double[] compute(Op op, long[] a, Tensor[] in, TypeInfo out, Context context) {
    switch (op.kind) {
      case UNARY:
        if (op == Op.CAST) {
          return cast(in[0].raw(), (int) a[0]);
        }
        if (op == Op.EW1) {
          AtenPointwise.Fn f = pointwise(context.table(), (int) a[0]);
          return map(in[0].raw(), v -> f.apply(v, 0));
        }
        return map(in[0].raw(), unary(op, a, in[0].dtype()));
      case BINARY:
      case COMPARE:
        if (op == Op.EW2) {
          AtenPointwise.Fn f = pointwise(context.table(), (int) a[0]);
          return zip(in[0].raw(), in[1].raw(), f::apply);
        }
        return zip(in[0].raw(), in[1].raw(), binary(op, in[0].dtype()));
      case TERNARY:
        return where(in[0].raw(), in[1].raw(), in[2].raw());
      default:
        double[][] xs = new double[in.length][];
        for (int i = 0; i < in.length; i++) {
          xs[i] = in[i].raw();
        }
        return combine(op, xs);
    }
  }

  private static AtenPointwise.Fn pointwise(OpTable table, int id) {
    return AtenPointwise.of(
        table.opaqueTarget(id), table.opaqueArguments(id), table.opaqueType(id).dtype());
  }

  @Override
  public String shapeRule(Op op) {
    if (op == Op.CAST) {
      return "the operand's shape; dtype [dtype]";
    }
    if (op == Op.EW1 || op == Op.EW2) {
      return "operands of one shape; that shape, the dtype of the ATen function [id] names";
    }
    return switch (op.kind) {
      case UNARY -> "the operand's shape and dtype";
      case BINARY -> "operands of one shape; that shape, the first operand's dtype";
      case COMPARE -> "operands of one shape; that shape, bool";
      case TERNARY -> "condition and values of one shape; that shape, the values' dtype";
      default -> "one or more operands of one shape; that shape and dtype";
    };
  }
}
