package dev.entangle.core.semantics;

import static dev.entangle.core.semantics.ShapeChecks.*;

import dev.entangle.core.Op;
import dev.entangle.core.Semantics;
import dev.entangle.core.ShapeException;
import dev.entangle.core.TypeInfo;
import dev.entangle.core.numeric.Strided;
import dev.entangle.core.numeric.Tensor;
import java.util.Arrays;

/**
 * Operators that move elements without computing: {@code expand}, {@code reshape}, {@code permute},
 * {@code slice} and {@code concat}, with the attribute layouts of {@link dev.entangle.core.Op}.
 */
public final class Layout implements Semantics {
  /** The family's semantics, named by its operators in {@link Op}. */
  public static final Layout SEMANTICS = new Layout();

  private Layout() {}

  /** Broadcast to {@code sizes} (input dims right-aligned, each 1 or equal). */
  public static double[] expand(Tensor x, long[] sizes) {
    return Strided.gather(x.raw(), sizes, Strided.broadcastStrides(x.rawShape(), sizes), 0);
  }

  /** Output dim i is input dim {@code dims[i]}. */
  public static double[] permute(Tensor x, long[] dims) {
    long[] in = x.rawShape();
    long[] st = Tensor.strides(in);
    long[] outShape = new long[dims.length];
    long[] outStrides = new long[dims.length];
    for (int i = 0; i < dims.length; i++) {
      outShape[i] = in[(int) dims[i]];
      outStrides[i] = st[(int) dims[i]];
    }
    return Strided.gather(x.raw(), outShape, outStrides, 0);
  }

  /** attrs [dim, start, end, step] with 0 <= start <= end <= size and step >= 1. */
  public static double[] slice(Tensor x, long[] a) {
    int d = (int) a[0];
    long start = a[1];
    long end = a[2];
    long step = a[3];
    long[] in = x.rawShape();
    long[] st = Tensor.strides(in);
    long[] outShape = in.clone();
    outShape[d] = end == start ? 0 : (end - start + step - 1) / step;
    long[] outStrides = st.clone();
    outStrides[d] = st[d] * step;
    return Strided.gather(x.raw(), outShape, outStrides, start * st[d]);
  }

  /** Concatenation along {@code dim}: each part's blocks in turn. */
  public static double[] concat(Tensor[] parts, int dim, long[] outShape) {
    double[] out = new double[Tensor.checkedNumel(outShape)];
    long outer = 1;
    for (int i = 0; i < dim; i++) {
      outer *= outShape[i];
    }
    long innerOut = out.length == 0 || outer == 0 ? 0 : out.length / outer;
    long offset = 0;
    for (Tensor p : parts) {
      double[] src = p.raw();
      long block = outer == 0 ? 0 : src.length / outer;
      for (long o = 0; o < outer; o++) {
        System.arraycopy(src, (int) (o * block), out, (int) (o * innerOut + offset), (int) block);
      }
      offset += block;
    }
    return out;
  }

  @Override
  public TypeInfo type(Op op, long[] a, TypeInfo[] c, Context context) {
    return switch (op) {
      case EXPAND -> expandType(c[0], a);
      case RESHAPE -> reshapeType(c[0], a);
      case PERMUTE -> permuteType(c[0], a);
      case SLICE -> sliceType(c[0], a);
      default -> concatType(c, (int) a[0]);
    };
  }

  @Override
  public double[] compute(Op op, long[] a, Tensor[] in, TypeInfo out, Context context) {
    return switch (op) {
      case EXPAND -> expand(in[0], a);
      case RESHAPE -> in[0].raw().clone();
      case PERMUTE -> permute(in[0], a);
      case SLICE -> slice(in[0], a);
      default -> concat(in, (int) a[0], out.shape());
    };
  }

  @Override
  public String shapeRule(Op op) {
    return switch (op) {
      case EXPAND -> "[sizes...]; each operand dim (right-aligned) is 1 or the size";
      case RESHAPE -> "[sizes...]; as many elements as the operand";
      case PERMUTE -> "the operand's dims in the order [dims...], a permutation";
      case SLICE -> "the operand's shape with dim [dim] cut to [start, end) by [step]";
      default -> "operands equal but along [dim], whose sizes add up";
    };
  }

  private static TypeInfo expandType(TypeInfo x, long[] sizes) {
    long[] s = x.shape();
    if (s.length > sizes.length) {
      throw new ShapeException(
          "expand of " + Arrays.toString(s) + " to fewer dims " + Arrays.toString(sizes));
    }
    int off = sizes.length - s.length;
    for (int i = 0; i < s.length; i++) {
      if (s[i] != 1 && s[i] != sizes[off + i]) {
        throw new ShapeException(
            "expand of " + Arrays.toString(s) + " to " + Arrays.toString(sizes));
      }
    }
    return new TypeInfo(sizes.clone(), x.dtype(), x.constant(), null);
  }

  private static TypeInfo reshapeType(TypeInfo x, long[] sizes) {
    long n = 1;
    for (long v : sizes) {
      if (v < 0) {
        throw new ShapeException("reshape to a negative size " + Arrays.toString(sizes));
      }
      n *= v;
    }
    if (n != x.numel()) {
      throw new ShapeException(
          "reshape of "
              + Arrays.toString(x.shape())
              + " ("
              + x.numel()
              + " elements) to "
              + Arrays.toString(sizes));
    }
    return new TypeInfo(sizes.clone(), x.dtype(), x.constant(), null);
  }

  private static TypeInfo permuteType(TypeInfo x, long[] dims) {
    long[] s = x.shape();
    if (dims.length != s.length) {
      throw new ShapeException(
          "permute " + Arrays.toString(dims) + " of a " + s.length + "-d tensor");
    }
    long[] out = new long[s.length];
    boolean[] seen = new boolean[s.length];
    for (int i = 0; i < dims.length; i++) {
      int d = (int) dims[i];
      if (d < 0 || d >= s.length || seen[d]) {
        throw new ShapeException("permute " + Arrays.toString(dims) + " is not a permutation");
      }
      seen[d] = true;
      out[i] = s[d];
    }
    return new TypeInfo(out, x.dtype(), x.constant(), null);
  }

  private static TypeInfo sliceType(TypeInfo x, long[] a) {
    int d = (int) a[0];
    checkDim(x, d, Op.SLICE);
    long start = a[1];
    long end = a[2];
    long step = a[3];
    if (start < 0 || end > x.size(d) || start > end || step < 1) {
      throw new ShapeException(
          "slice [" + start + ":" + end + ":" + step + "] of dim " + d + " of size " + x.size(d));
    }
    long[] out = x.shape().clone();
    out[d] = (end - start + step - 1) / step;
    return new TypeInfo(out, x.dtype(), x.constant(), null);
  }

  private static TypeInfo concatType(TypeInfo[] c, int d) {
    if (c.length == 0) {
      throw new ShapeException("concat of nothing");
    }
    checkDim(c[0], d, Op.CONCAT);
    long[] out = c[0].shape().clone();
    Double constant = c[0].constant();
    for (int i = 1; i < c.length; i++) {
      long[] s = c[i].shape();
      if (s.length != out.length) {
        throw new ShapeException("concat of tensors of different ranks");
      }
      for (int k = 0; k < s.length; k++) {
        if (k != d && s[k] != out[k]) {
          throw new ShapeException(
              "concat along dim "
                  + d
                  + " of shapes "
                  + Arrays.toString(c[0].shape())
                  + " and "
                  + Arrays.toString(s));
        }
      }
      out[d] += s[d];
      if (constant != null && !constant.equals(c[i].constant())) {
        constant = null;
      }
    }
    return new TypeInfo(out, c[0].dtype(), constant, null);
  }
}
