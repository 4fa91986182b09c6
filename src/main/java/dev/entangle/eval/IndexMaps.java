package dev.entangle.eval;

import dev.entangle.core.numeric.Tensor;
import dev.entangle.core.semantics.Layout;

/**
 * Where each element of a view comes from: for an output of a slice, permute or a concat's part,
 * the row-major position it reads, found by running the layout kernel on the positions themselves.
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
   * For each element of {@code slice[dim, start, end, step]} of a tensor of shape {@code in}, its
   * position there.
   */
  public static int[] slice(long[] in, int dim, long start, long end, long step) {
    return ints(Layout.slice(iota(in), new long[] {dim, start, end, step}));
  }

  /**
   * For each element of {@code permute[dims]} of a tensor of shape {@code in}, its position there.
   */
  public static int[] permute(long[] in, long[] dims) {
    return ints(Layout.permute(iota(in), dims));
  }
}
