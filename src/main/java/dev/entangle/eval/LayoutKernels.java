package dev.entangle.eval;

/**
 * Operators that move elements without computing: {@code expand}, {@code reshape}, {@code permute},
 * {@code slice} and {@code concat}, with the attribute layouts of {@link dev.entangle.core.Op}.
 */
final class LayoutKernels {
  private LayoutKernels() {}

  /** Broadcast to {@code sizes} (input dims right-aligned, each 1 or equal). */
  static double[] expand(Tensor x, long[] sizes) {
    return Strided.gather(x.raw(), sizes, Strided.broadcastStrides(x.rawShape(), sizes), 0);
  }

  /** Output dim i is input dim {@code dims[i]}. */
  static double[] permute(Tensor x, long[] dims) {
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
  static double[] slice(Tensor x, long[] a) {
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
  static double[] concat(Tensor[] parts, int dim, long[] outShape) {
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
}
