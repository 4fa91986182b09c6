package dev.entangle.eval;

import dev.entangle.core.numeric.Tensor;
import dev.entangle.core.semantics.Layout;

/**
 * Where each element of a view comes from: for an output of a slice, permute or a concat's part,
 * the row-major position it reads: a slice's computed from its own elements, a permute's by running
 * the layout kernel on the positions themselves.
 */
public final class IndexMaps {
  private IndexMaps() {}

  /** Positions 0..n-1 of a shape, as a tensor. */
  private static Tensor iota(long[] shape) {
    double[] v = new double[Tensor.checkedNumel(shape)];
    for (int i = 0; i < v.length; i++) {
      v[i] = i;
    }
    return new Tensor(shape.clone(), 0, v);
  }

  private static int[] ints(double[] v) {
    int[] out = new int[v.length];
    for (int i = 0; i < v.length; i++) {
      out[i] = (int) v[i];
    }
    return out;
  }

  /**
   * For each element of {@code slice[dim, start, end, step]} (with {@code 0 <= start <= end <=
   * in[dim]} and {@code step >= 1}, as {@link Layout#slice} takes it) of a tensor of shape {@code
   * in}, its position there. Computed from the slice's own elements: a slice of a large table costs
   * its size, not the table's.
   */
  public static int[] slice(long[] in, int dim, long start, long end, long step) {
    long[] outShape = in.clone();
    outShape[dim] = end == start ? 0 : (end - start + step - 1) / step;
    int[] out = new int[Tensor.checkedNumel(outShape)];
    long outer = 1;
    for (int i = 0; i < dim; i++) {
      outer *= in[i];
    }
    long inner = 1;
    for (int i = dim + 1; i < in.length; i++) {
      inner *= in[i];
    }
    int p = 0;
    for (long o = 0; o < outer && p < out.length; o++) {
      for (long k = 0; k < outShape[dim]; k++) {
        long first = (o * in[dim] + start + k * step) * inner;
        for (long j = 0; j < inner; j++) {
          out[p++] = (int) (first + j);
        }
      }
    }
    return out;
  }

  /**
   * For each element of {@code permute[dims]} of a tensor of shape {@code in}, its position there.
   */
  public static int[] permute(long[] in, long[] dims) {
    return ints(Layout.permute(iota(in), dims));
  }
}
