package dev.entangle.core.semantics;

import static dev.entangle.core.semantics.ShapeChecks.*;

import dev.entangle.core.Op;
import dev.entangle.core.Semantics;
import dev.entangle.core.TypeInfo;
import dev.entangle.core.numeric.Tensor;

/**
 * Operators over one dim ({@code softmax}, {@code log_softmax} and their gradients: attrs [dim]) or
 * over the last k dims ({@code ln_normalize}, {@code ln_mean}, {@code ln_rstd}, {@code
 * rms_normalize}: attrs [k] or [k, eps bits]); the variance is the biased one, as layer norm uses.
 */
public final class Rowwise implements Semantics {
  /** The family's semantics, named by its operators in {@link Op}. */
  public static final Rowwise SEMANTICS = new Rowwise();

  private Rowwise() {}

  /** A tensor seen as [outer, n, inner] around one dim. */
  private record Around(int outer, int n, int inner) {
    static Around of(long[] shape, int dim) {
      long outer = 1;
      long inner = 1;
      for (int i = 0; i < dim; i++) {
        outer *= shape[i];
      }
      for (int i = dim + 1; i < shape.length; i++) {
        inner *= shape[i];
      }
      return new Around((int) outer, (int) shape[dim], (int) inner);
    }

    int at(int o, int j, int i) {
      return (o * n + j) * inner + i;
    }
  }

  public static double[] softmax(Op op, Tensor x, int dim) {
    Around s = Around.of(x.rawShape(), dim);
    double[] src = x.raw();
    double[] out = new double[src.length];
    for (int o = 0; o < s.outer(); o++) {
      for (int i = 0; i < s.inner(); i++) {
        double max = Double.NEGATIVE_INFINITY;
        for (int j = 0; j < s.n(); j++) {
          double v = src[s.at(o, j, i)];
          max = v > max || Double.isNaN(v) ? v : max;
        }
        double sum = 0;
        for (int j = 0; j < s.n(); j++) {
          sum += Math.exp(src[s.at(o, j, i)] - max);
        }
        double logSum = Math.log(sum);
        for (int j = 0; j < s.n(); j++) {
          int k = s.at(o, j, i);
          out[k] = op == Op.LOG_SOFTMAX ? src[k] - max - logSum : Math.exp(src[k] - max) / sum;
        }
      }
    }
    return out;
  }

  /**
   * From the upstream gradient and the forward output y: softmax's {@code y * (g - sum(g * y))},
   * log-softmax's {@code g - exp(y) * sum(g)}.
   */
  public static double[] softmaxBackward(Op op, Tensor grad, Tensor y, int dim) {
    Around s = Around.of(y.rawShape(), dim);
    double[] g = grad.raw();
    double[] out = new double[g.length];
    double[] v = y.raw();
    for (int o = 0; o < s.outer(); o++) {
      for (int i = 0; i < s.inner(); i++) {
        double sum = 0;
        for (int j = 0; j < s.n(); j++) {
          int k = s.at(o, j, i);
          sum += op == Op.SOFTMAX_BACKWARD ? g[k] * v[k] : g[k];
        }
        for (int j = 0; j < s.n(); j++) {
          int k = s.at(o, j, i);
          out[k] = op == Op.SOFTMAX_BACKWARD ? v[k] * (g[k] - sum) : g[k] - Math.exp(v[k]) * sum;
        }
      }
    }
    return out;
  }

  /** ln_normalize, ln_mean, ln_rstd or rms_normalize over the last k dims. */
  public static double[] lastDims(Op op, Tensor x, long[] attrs) {
    long[] shape = x.rawShape();
    int k = (int) attrs[0];
    long cols = 1;
    long rowCount = 1;
    for (int i = 0; i < shape.length; i++) {
      if (i < shape.length - k) {
        rowCount *= shape[i];
      } else {
        cols *= shape[i];
      }
    }
    double eps = attrs.length > 1 ? Double.longBitsToDouble(attrs[1]) : 0;
    double[] src = x.raw();
    int rows = (int) rowCount;
    boolean perRow = op == Op.LN_MEAN || op == Op.LN_RSTD;
    double[] out = new double[perRow ? rows : src.length];
    int c = (int) cols;
    for (int r = 0; r < rows; r++) {
      int base = r * c;
      double mean = 0;
      double square = 0;
      for (int j = 0; j < c; j++) {
        mean += src[base + j];
        square += src[base + j] * src[base + j];
      }
      mean /= c;
      if (op == Op.RMS_NORMALIZE) {
        double scale = 1 / Math.sqrt(square / c + eps);
        for (int j = 0; j < c; j++) {
          out[base + j] = src[base + j] * scale;
        }
        continue;
      }
      double var = 0;
      for (int j = 0; j < c; j++) {
        double d = src[base + j] - mean;
        var += d * d;
      }
      double rstd = 1 / Math.sqrt(var / c + eps);
      switch (op) {
        case LN_MEAN -> out[r] = mean;
        case LN_RSTD -> out[r] = rstd;
        case LN_NORMALIZE -> {
          for (int j = 0; j < c; j++) {
            out[base + j] = (src[base + j] - mean) * rstd;
          }
        }
        default -> throw new IllegalArgumentException(op + " is not a normalization");
      }
    }
    return out;
  }

  @Override
  public TypeInfo type(Op op, long[] a, TypeInfo[] c, Context context) {
    return switch (op) {
      case SOFTMAX, LOG_SOFTMAX -> {
        checkDim(c[0], a[0], op);
        yield TypeInfo.tensor(c[0].shape(), c[0].dtype());
      }
      case SOFTMAX_BACKWARD, LOG_SOFTMAX_BACKWARD -> {
        checkDim(c[0], a[0], op);
        sameShapes(op, c);
        yield TypeInfo.tensor(c[0].shape(), c[0].dtype());
      }
      case LN_NORMALIZE, RMS_NORMALIZE -> {
        checkLastDims(c[0], a[0], op);
        yield TypeInfo.tensor(c[0].shape(), c[0].dtype());
      }
      default -> {
        checkLastDims(c[0], a[0], op);
        long[] s = c[0].shape().clone();
        for (int i = s.length - (int) a[0]; i < s.length; i++) {
          s[i] = 1;
        }
        yield TypeInfo.tensor(s, c[0].dtype());
      }
    };
  }

  @Override
  public double[] compute(Op op, long[] a, Tensor[] in, TypeInfo out, Context context) {
    return switch (op) {
      case SOFTMAX, LOG_SOFTMAX -> softmax(op, in[0], (int) a[0]);
      case SOFTMAX_BACKWARD, LOG_SOFTMAX_BACKWARD -> softmaxBackward(op, in[0], in[1], (int) a[0]);
      default -> lastDims(op, in[0], a);
    };
  }

  @Override
  public String shapeRule(Op op) {
    return switch (op) {
      case SOFTMAX, LOG_SOFTMAX -> "the operand's shape; [dim] one of its dims";
      case SOFTMAX_BACKWARD, LOG_SOFTMAX_BACKWARD ->
          "gradient and output of one shape; that shape; [dim] one of its dims";
      case LN_MEAN, LN_RSTD -> "the operand's shape with its last [k] dims of size 1";
      default -> "the operand's shape; [k] at most its rank";
    };
  }
}
