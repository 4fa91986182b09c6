package dev.entangle.core.numeric;

/** Copies elements through strides: the loop that permutes, slices and broadcasts. */
public final class Strided {
  private Strided() {}

  /**
   * A new row-major array of shape {@code outShape} whose element at index i is {@code src[base +
   * sum(i[d] * srcStrides[d])]}. A stride of 0 repeats (broadcasts) a dim.
   */
  public static double[] gather(double[] src, long[] outShape, long[] srcStrides, long base) {
    int n = Tensor.checkedNumel(outShape);
    double[] out = new double[n];
    if (n == 0) {
      return out;
    }
    int rank = outShape.length;
    if (rank == 0) {
      out[0] = src[(int) base];
      return out;
    }
    int inner = (int) outShape[rank - 1];
    long innerStride = srcStrides[rank - 1];
    long[] idx = new long[rank];
    long offset = base;
    int pos = 0;
    while (pos < n) {
      long o = offset;
      for (int j = 0; j < inner; j++, o += innerStride) {
        out[pos++] = src[(int) o];
      }
      // advance the odometer over the outer dims
      int d = rank - 2;
      while (d >= 0) {
        idx[d]++;
        offset += srcStrides[d];
        if (idx[d] < outShape[d]) {
          break;
        }
        offset -= srcStrides[d] * outShape[d];
        idx[d] = 0;
        d--;
      }
      if (d < 0) {
        break;
      }
    }
    return out;
  }

  /** Strides that read {@code inShape} broadcast to {@code outShape} (input dims right-aligned). */
  public static long[] broadcastStrides(long[] inShape, long[] outShape) {
    long[] inStrides = Tensor.strides(inShape);
    long[] st = new long[outShape.length];
    int off = outShape.length - inShape.length;
    for (int i = 0; i < inShape.length; i++) {
      st[off + i] = inShape[i] == 1 && outShape[off + i] != 1 ? 0 : inStrides[i];
    }
    return st;
  }
}
