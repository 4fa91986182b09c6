package dev.entangle.core.semantics;

import dev.entangle.core.Op;
import dev.entangle.core.Semantics;
import dev.entangle.core.ShapeException;
import dev.entangle.core.TypeInfo;
import dev.entangle.core.numeric.Tensor;
import java.util.Arrays;

/**
 * Convolutions over {@code d} spatial dims (torch's {@code aten.convolution}, not transposed) and
 * their two gradients, each a bilinear function of its operands:
 *
 * <ul>
 *   <li>{@code conv(x[N, C, S...], w[O, C/groups, K...])} is {@code y[N, O, T...]} with {@code y[n,
 *       o, t] = Σ_{c, k} x[n, g·C/groups + c, t·stride - pad + k·dilation] · w[o, c, k]}, {@code g
 *       = o / (O/groups)}, positions outside x reading zero, and {@code T = (S + 2·pad -
 *       dilation·(K - 1) - 1) / stride + 1};
 *   <li>{@code conv_input_grad(gy[N, O, T...], w)} is the gradient with respect to x, of shape
 *       {@code [N, C, S...]} (S is an attribute: several S give one T when stride > 1);
 *   <li>{@code conv_weight_grad(x, gy)} is the gradient with respect to w, of shape {@code [O,
 *       C/groups, K...]} (K is an attribute).
 * </ul>
 *
 * <p>attrs: {@code [groups, d, stride × d, pad × d, dilation × d]}, then for the input gradient the
 * input's spatial sizes and for the weight gradient the kernel's ({@code × d}). Each sum runs in a
 * fixed order (channels, then kernel positions, then for the gradients the output positions), so a
 * result does not depend on how its loops are blocked.
 */
public final class Convolution implements Semantics {
  /** The family's semantics, named by its operators in {@link Op}. */
  public static final Convolution SEMANTICS = new Convolution();

  private Convolution() {}

  /** The attributes of one convolution, and the geometry they fix with the operands' shapes. */
  private record Geometry(
      long n, long c, long o, int groups, long[] s, long[] k, long[] t, long[] attrs) {
    int d() {
      return s.length;
    }

    long stride(int i) {
      return attrs[2 + i];
    }

    long pad(int i) {
      return attrs[2 + d() + i];
    }

    long dilation(int i) {
      return attrs[2 + 2 * d() + i];
    }

    /** The multiply-adds of one application. */
    long work() {
      return n * o * (c / groups) * Tensor.numel(t) * Tensor.numel(k);
    }
  }

  /** {@code conv}'s attributes: [groups, d, stride × d, pad × d, dilation × d]. */
  public static long[] attrs(long groups, long[] stride, long[] pad, long[] dilation) {
    int d = stride.length;
    long[] a = new long[2 + 3 * d];
    a[0] = groups;
    a[1] = d;
    System.arraycopy(stride, 0, a, 2, d);
    System.arraycopy(pad, 0, a, 2 + d, d);
    System.arraycopy(dilation, 0, a, 2 + 2 * d, d);
    return a;
  }

  /**
   * A gradient's attributes: {@code conv}'s, then the spatial sizes of {@code shape} (its dims
   * after the first two: the input's for {@code conv_input_grad}, the filters' for {@code
   * conv_weight_grad}).
   */
  public static long[] withSizes(long[] convAttrs, long[] shape) {
    long[] out = Arrays.copyOf(convAttrs, convAttrs.length + shape.length - 2);
    System.arraycopy(shape, 2, out, convAttrs.length, shape.length - 2);
    return out;
  }

  /** How many attributes {@code op} takes for {@code d} spatial dims. */
  static int attrCount(Op op, int d) {
    return 2 + 3 * d + (op == Op.CONV ? 0 : d);
  }

  @Override
  public TypeInfo type(Op op, long[] attrs, TypeInfo[] c, Context context) {
    Geometry g = geometry(op, attrs, c[0].shape(), c[1].shape());
    long[] out =
        switch (op) {
          case CONV -> join(g.n, g.o, g.t);
          case CONV_INPUT_GRAD -> join(g.n, g.c, g.s);
          default -> join(g.o, g.c / g.groups, g.k);
        };
    return TypeInfo.tensor(out, c[0].dtype());
  }

  /** The geometry of an application, refusing operands and attributes that do not fit. */
  private static Geometry geometry(Op op, long[] attrs, long[] a, long[] b) {
    if (attrs.length < 2) {
      throw new ShapeException(op.symbol() + " needs [groups, d, ...] attributes");
    }
    int groups = (int) attrs[0];
    long d = attrs[1];
    if (d < 1 || d > 3 || attrs.length != attrCount(op, (int) d)) {
      throw new ShapeException(
          op.symbol()
              + " over "
              + d
              + " spatial dims takes "
              + (d >= 1 && d <= 3 ? attrCount(op, (int) d) : "1 to 3 spatial dims and")
              + " attributes, got "
              + attrs.length);
    }
    int dims = (int) d;
    for (int i = 0; i < dims; i++) {
      if (attrs[2 + i] < 1 || attrs[2 + dims + i] < 0 || attrs[2 + 2 * dims + i] < 1) {
        throw new ShapeException(
            op.symbol() + " needs strides and dilations of at least 1 and paddings of at least 0");
      }
    }
    long[] extra = Arrays.copyOfRange(attrs, 2 + 3 * dims, attrs.length);
    // the operands' roles: conv(x, w), conv_input_grad(gy, w), conv_weight_grad(x, gy)
    long[] x = op == Op.CONV_INPUT_GRAD ? null : a;
    long[] w = op == Op.CONV_WEIGHT_GRAD ? null : b;
    long[] gy = op == Op.CONV ? null : (op == Op.CONV_INPUT_GRAD ? a : b);
    for (long[] s : new long[][] {x, w, gy}) {
      if (s != null && s.length != dims + 2) {
        throw new ShapeException(
            op.symbol()
                + " over "
                + dims
                + " spatial dims of operands of shapes "
                + Arrays.toString(a)
                + " and "
                + Arrays.toString(b));
      }
    }
    if (groups < 1) {
      throw new ShapeException(op.symbol() + " needs at least 1 group, got " + groups);
    }
    long n = x != null ? x[0] : gy[0];
    long o = w != null ? w[0] : gy[1];
    long c = x != null ? x[1] : w[1] * groups;
    long[] s = x != null ? ShapeChecks.tail(x, 2) : extra;
    long[] k = w != null ? ShapeChecks.tail(w, 2) : extra;
    if (o % groups != 0 || c % groups != 0 || (w != null && w[1] * groups != c)) {
      throw new ShapeException(
          op.symbol()
              + " of "
              + groups
              + " groups: "
              + c
              + " input and "
              + o
              + " output channels"
              + (w != null ? " and a weight of shape " + Arrays.toString(w) : ""));
    }
    long[] t = new long[dims];
    for (int i = 0; i < dims; i++) {
      long span = attrs[2 + 2 * dims + i] * (k[i] - 1) + 1;
      long padded = s[i] + 2 * attrs[2 + dims + i];
      if (k[i] < 1 || s[i] < 0 || padded < span) {
        throw new ShapeException(
            op.symbol()
                + ": a kernel of "
                + Arrays.toString(k)
                + " does not fit an input of "
                + Arrays.toString(s)
                + " with these paddings and dilations");
      }
      t[i] = (padded - span) / attrs[2 + i] + 1;
    }
    if (gy != null && (gy[0] != n || gy[1] != o || !Arrays.equals(ShapeChecks.tail(gy, 2), t))) {
      throw new ShapeException(
          op.symbol()
              + ": the output gradient's shape "
              + Arrays.toString(gy)
              + " is not the convolution's "
              + Arrays.toString(join(n, o, t)));
    }
    return new Geometry(n, c, o, groups, s, k, t, attrs);
  }

  @Override
  public double[] compute(Op op, long[] attrs, Tensor[] in, TypeInfo out, Context context) {
    Geometry g = geometry(op, attrs, in[0].rawShape(), in[1].rawShape());
    double[] result = new double[Tensor.checkedNumel(out.shape())];
    double[] a = in[0].raw();
    double[] b = in[1].raw();
    visit(
        g,
        (xi, wi, yi) -> {
          switch (op) {
            case CONV -> result[yi] += a[xi] * b[wi];
            case CONV_INPUT_GRAD -> result[xi] += a[yi] * b[wi];
            default -> result[wi] += a[xi] * b[yi];
          }
        });
    return result;
  }

  /** Receives the flat indices of one product x[xi] · w[wi] that adds to y[yi]. */
  @FunctionalInterface
  private interface Product {
    void at(int xi, int wi, int yi);
  }

  /**
   * Every in-bounds product of a convolution, in the order: batch, output channel, output position,
   * input channel of the group, kernel position (each row-major).
   */
  private static void visit(Geometry g, Product p) {
    int d = g.d();
    long cg = g.c / g.groups;
    long og = g.o / g.groups;
    long sVol = Tensor.numel(g.s);
    long kVol = Tensor.numel(g.k);
    long tVol = Tensor.numel(g.t);
    long[] tPos = new long[d];
    long[] kPos = new long[d];
    for (long n = 0; n < g.n; n++) {
      for (long o = 0; o < g.o; o++) {
        long group = o / og;
        for (long t = 0; t < tVol; t++) {
          unflatten(t, g.t, tPos);
          int yi = (int) ((n * g.o + o) * tVol + t);
          for (long ci = 0; ci < cg; ci++) {
            long channel = group * cg + ci;
            for (long k = 0; k < kVol; k++) {
              unflatten(k, g.k, kPos);
              long flat = 0;
              boolean inside = true;
              for (int i = 0; i < d && inside; i++) {
                long pos = tPos[i] * g.stride(i) - g.pad(i) + kPos[i] * g.dilation(i);
                inside = pos >= 0 && pos < g.s[i];
                flat = flat * g.s[i] + pos;
              }
              if (inside) {
                int xi = (int) ((n * g.c + channel) * sVol + flat);
                int wi = (int) ((o * cg + ci) * kVol + k);
                p.at(xi, wi, yi);
              }
            }
          }
        }
      }
    }
  }

  private static void unflatten(long flat, long[] shape, long[] out) {
    for (int i = shape.length - 1; i >= 0; i--) {
      out[i] = flat % shape[i];
      flat /= shape[i];
    }
  }

  private static long[] join(long a, long b, long[] rest) {
    long[] out = new long[rest.length + 2];
    out[0] = a;
    out[1] = b;
    System.arraycopy(rest, 0, out, 2, rest.length);
    return out;
  }

  /**
   * The multiply-adds of one application from its operand and result shapes (positions in the
   * padding counted too, so a bound).
   */
  public static long cost(Op op, long[] a, long[] b, long[] out) {
    return switch (op) {
      case CONV -> Tensor.numel(out) * (Tensor.numel(b) / Math.max(1, b[0]));
      case CONV_INPUT_GRAD -> Tensor.numel(a) * (Tensor.numel(b) / Math.max(1, b[0]));
      default -> Tensor.numel(b) * (Tensor.numel(out) / Math.max(1, out[0]));
    };
  }

  @Override
  public long cost(Op op, Tensor[] in, long elements) {
    // the result's shape is not at hand: the elements read and written bound its size
    long[] a = in[0].rawShape();
    long[] b = in[1].rawShape();
    return elements
        + switch (op) {
          case CONV -> elements * (Tensor.numel(b) / Math.max(1, b[0]));
          case CONV_INPUT_GRAD -> Tensor.numel(a) * (Tensor.numel(b) / Math.max(1, b[0]));
          default -> Tensor.numel(b) * (elements / Math.max(1, b[1]));
        };
  }

  @Override
  public String shapeRule(Op op) {
    return switch (op) {
      case CONV ->
          "x[N, C, S...] and w[O, C/groups, K...]: [N, O, T...], T = (S + 2 pad - dilation (K - 1)"
              + " - 1) / stride + 1";
      case CONV_INPUT_GRAD -> "gy[N, O, T...] and w[O, C/groups, K...]: x's shape [N, C, S...]";
      default -> "x[N, C, S...] and gy[N, O, T...]: w's shape [O, C/groups, K...]";
    };
  }
}
