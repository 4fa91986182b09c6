package dev.entangle.core.semantics;

import static dev.entangle.core.semantics.ShapeChecks.*;

import dev.entangle.core.Dtype;
import dev.entangle.core.Op;
import dev.entangle.core.Semantics;
import dev.entangle.core.ShapeException;
import dev.entangle.core.TypeInfo;
import dev.entangle.core.numeric.EvalException;
import dev.entangle.core.numeric.Tensor;
import java.util.Arrays;

/**
 * Reductions over dims ({@code rsum}, {@code rmean}, {@code ramax}, {@code ramin}: attrs [keepdim,
 * dims...]), {@code argmax} (attrs [keepdim, dim]) and {@code topk}, {@code topk_indices} (attrs
 * [dim, k, largest]). Sums add in row-major order of the input; max and min propagate NaN, as
 * PyTorch's do.
 */
public final class Reductions implements Semantics {
  /** The family's semantics, named by its operators in {@link Op}. */
  public static final Reductions SEMANTICS = new Reductions();

  private Reductions() {}

  public static double[] reduce(Op op, Tensor x, long[] attrs) {
    long[] in = x.rawShape();
    boolean[] reduced = new boolean[in.length];
    for (int i = 1; i < attrs.length; i++) {
      reduced[(int) attrs[i]] = true;
    }
    long[] kept = in.clone();
    long count = 1;
    for (int i = 0; i < in.length; i++) {
      if (reduced[i]) {
        kept[i] = 1;
        count *= in[i];
      }
    }
    if (count == 0 && (op == Op.RAMAX || op == Op.RAMIN)) {
      throw new EvalException(op.symbol() + " over dims of size 0 has no value");
    }
    long[] outStrides = Tensor.strides(kept);
    for (int i = 0; i < in.length; i++) {
      if (reduced[i]) {
        outStrides[i] = 0;
      }
    }
    double[] out = new double[Tensor.checkedNumel(kept)];
    double init =
        switch (op) {
          case RAMAX -> Double.NEGATIVE_INFINITY;
          case RAMIN -> Double.POSITIVE_INFINITY;
          default -> 0;
        };
    Arrays.fill(out, init);
    double[] src = x.raw();
    long[] idx = new long[in.length];
    long o = 0;
    for (int pos = 0; pos < src.length; pos++) {
      double v = src[pos];
      int k = (int) o;
      switch (op) {
        case RSUM, RMEAN -> out[k] += v;
        case RAMAX -> out[k] = v > out[k] || Double.isNaN(v) ? v : out[k];
        case RAMIN -> out[k] = v < out[k] || Double.isNaN(v) ? v : out[k];
        default -> throw new IllegalArgumentException(op + " is not a reduction");
      }
      for (int d = in.length - 1; d >= 0; d--) {
        idx[d]++;
        o += outStrides[d];
        if (idx[d] < in[d]) {
          break;
        }
        o -= outStrides[d] * in[d];
        idx[d] = 0;
      }
    }
    if (op == Op.RMEAN) {
      for (int i = 0; i < out.length; i++) {
        out[i] /= count;
      }
    }
    return out;
  }

  /** The index of the first maximum along one dim (a NaN counts as the maximum). */
  public static double[] argmax(Tensor x, int dim) {
    long[] in = x.rawShape();
    if (in.length == 0) {
      return new double[] {0};
    }
    long n = in[dim];
    long inner = 1;
    for (int i = dim + 1; i < in.length; i++) {
      inner *= in[i];
    }
    long outer = 1;
    for (int i = 0; i < dim; i++) {
      outer *= in[i];
    }
    if (n == 0 && outer * inner > 0) {
      throw new EvalException("argmax over a dim of size 0 has no value");
    }
    double[] src = x.raw();
    double[] out = new double[(int) (outer * inner)];
    for (long o = 0; o < outer; o++) {
      for (long i = 0; i < inner; i++) {
        long base = o * n * inner + i;
        int best = 0;
        double bestV = src[(int) base];
        for (int j = 1; j < n && !Double.isNaN(bestV); j++) {
          double v = src[(int) (base + j * inner)];
          if (v > bestV || Double.isNaN(v)) {
            best = j;
            bestV = v;
          }
        }
        out[(int) (o * inner + i)] = best;
      }
    }
    return out;
  }

  /**
   * The k largest entries along one dim ({@code indices}: their positions), largest first, or the k
   * smallest, smallest first: a NaN counts as larger than every number (first among the largest,
   * last among the smallest, as torch's kernel orders them), and of equal entries the first comes
   * first.
   */
  public static double[] topk(Tensor x, int dim, int k, boolean largest, boolean indices) {
    long[] in = x.rawShape();
    int n = (int) in[dim];
    long outer = 1;
    for (int i = 0; i < dim; i++) {
      outer *= in[i];
    }
    long stride = 1;
    for (int i = dim + 1; i < in.length; i++) {
      stride *= in[i];
    }
    final long inner = stride;
    double[] src = x.raw();
    double[] out = new double[(int) (outer * k * inner)];
    Integer[] order = new Integer[n];
    for (long o = 0; o < outer; o++) {
      for (long i = 0; i < inner; i++) {
        final long base = o * n * inner + i;
        for (int j = 0; j < n; j++) {
          order[j] = j;
        }
        Arrays.sort(
            order,
            (p, q) ->
                (largest ? -1 : 1)
                    * compareNanLargest(
                        src[(int) (base + p * inner)], src[(int) (base + q * inner)]));
        for (int j = 0; j < k; j++) {
          out[(int) (o * k * inner + j * inner + i)] =
              indices ? order[j] : src[(int) (base + order[j] * inner)];
        }
      }
    }
    return out;
  }

  /** Orders numbers ascending with NaN above every other; -0.0 and 0.0 are equal. */
  private static int compareNanLargest(double a, double b) {
    if (Double.isNaN(a) || Double.isNaN(b)) {
      return Boolean.compare(Double.isNaN(a), Double.isNaN(b));
    }
    return a < b ? -1 : a > b ? 1 : 0;
  }

  @Override
  public TypeInfo type(Op op, long[] a, TypeInfo[] c, Context context) {
    if (op == Op.TOPK || op == Op.TOPK_INDICES) {
      checkDim(c[0], a[0], op);
      long[] shape = c[0].shape().clone();
      if (a[1] < 0 || a[1] > shape[(int) a[0]]) {
        throw new ShapeException(
            op.symbol() + " takes k in [0, " + shape[(int) a[0]] + "], got " + a[1]);
      }
      shape[(int) a[0]] = a[1];
      return TypeInfo.tensor(shape, op == Op.TOPK ? c[0].dtype() : Dtype.INT64.code());
    }
    if (op == Op.ARGMAX) {
      return TypeInfo.tensor(reduceShape(c[0], a[0] != 0, new long[] {a[1]}), Dtype.INT64.code());
    }
    long[] dims = tail(a, 1);
    for (long d : dims) {
      checkDim(c[0], d, op);
    }
    TypeInfo out = TypeInfo.tensor(reduceShape(c[0], a[0] != 0, dims), c[0].dtype());
    Double k = constant(op, c[0], dims);
    return k == null ? out : out.withConstant(k);
  }

  /**
   * The value every element of a reduction of a tensor known to hold one value holds: that value
   * for a mean, max or min of at least one element, and the value times the count for a sum when
   * both are integers small enough to be exact (the sum a float tensor of ones adds up to); else
   * null.
   */
  private static Double constant(Op op, TypeInfo x, long[] dims) {
    Double c = x.constant();
    if (c == null || !Double.isFinite(c)) {
      return null;
    }
    long count = 1;
    for (long d : dims) {
      count *= x.shape()[(int) d];
    }
    if (count == 0) {
      return null;
    }
    if (op != Op.RSUM) {
      return c;
    }
    double sum = c * count;
    return c == Math.rint(c) && Math.abs(sum) < (1L << 52) ? sum : null;
  }

  @Override
  public double[] compute(Op op, long[] a, Tensor[] in, TypeInfo out, Context context) {
    return switch (op) {
      case ARGMAX -> argmax(in[0], (int) a[1]);
      case TOPK, TOPK_INDICES ->
          topk(in[0], (int) a[0], (int) a[1], a[2] != 0, op == Op.TOPK_INDICES);
      default -> reduce(op, in[0], a);
    };
  }

  @Override
  public String shapeRule(Op op) {
    return switch (op) {
      case ARGMAX -> "the operand's shape without dim [dim] (size 1 with [keepdim]); int64";
      case TOPK -> "the operand's shape with size k along [dim]";
      case TOPK_INDICES -> "the operand's shape with size k along [dim]; int64";
      default -> "the operand's shape without dims [dims...] (size 1 with [keepdim])";
    };
  }
}
