package dev.entangle.eval;

import java.util.Arrays;

/**
 * Operators that index with integer tensors: row lookups ({@code embedding}, {@code
 * embedding_range}), element picks ({@code index2}, {@code pick}, {@code pick_range}), the table
 * gradient ({@code embedding_grad}) and the range mask ({@code out_of_range}). An id outside what
 * it indexes is an {@link EvalException} naming the id and its position, as PyTorch's kernels
 * refuse it; {@code index2} and {@code pick} count negative ids from the end, as advanced indexing
 * does.
 */
final class IndexKernels {
  private IndexKernels() {}

  /** Rows of w[V, H] selected by ids: result ids.shape + [H]. */
  static double[] embedding(Tensor w, Tensor ids) {
    return rows(w, ids, 0, w.size(0), false);
  }

  /** Rows (id - lo) of the shard w for ids in [lo, hi), zero rows elsewhere. */
  static double[] embeddingRange(Tensor w, Tensor ids, long lo, long hi) {
    return rows(w, ids, lo, hi, true);
  }

  private static double[] rows(Tensor w, Tensor ids, long lo, long hi, boolean zeroOutside) {
    int h = (int) w.size(1);
    double[] table = w.raw();
    double[] id = ids.raw();
    double[] out = new double[Tensor.checkedNumel(new long[] {id.length, h})];
    for (int p = 0; p < id.length; p++) {
      long v = integer(id[p], "embedding", ids, p);
      if (v < lo || v >= hi) {
        if (zeroOutside) {
          continue;
        }
        throw new EvalException(
            "embedding id "
                + v
                + " at position "
                + position(ids, p)
                + " is outside the table's "
                + (hi - lo)
                + " rows");
      }
      System.arraycopy(table, (int) ((v - lo) * h), out, p * h, h);
    }
    return out;
  }

  /** {@code x[i0, i1]} of a 2-d x, element by element. */
  static double[] index2(Tensor x, Tensor i0, Tensor i1) {
    long rows = x.size(0);
    long cols = x.size(1);
    double[] a = i0.raw();
    double[] b = i1.raw();
    double[] src = x.raw();
    double[] out = new double[a.length];
    for (int p = 0; p < a.length; p++) {
      long r = wrap(integer(a[p], "index", i0, p), rows, "rows", i0, p);
      long c = wrap(integer(b[p], "index", i1, p), cols, "columns", i1, p);
      out[p] = src[(int) (r * cols + c)];
    }
    return out;
  }

  /** {@code x[..., idx]}: for each position of idx, the element of x's last dim it names. */
  static double[] pick(Tensor x, Tensor idx) {
    long v = x.size(x.rank() - 1);
    double[] id = idx.raw();
    double[] src = x.raw();
    double[] out = new double[id.length];
    for (int p = 0; p < id.length; p++) {
      long c = wrap(integer(id[p], "pick", idx, p), v, "entries of the last dim", idx, p);
      out[p] = src[(int) (p * v + c)];
    }
    return out;
  }

  /** Where lo <= idx < hi, {@code x[..., idx - lo]}; elsewhere 0. */
  static double[] pickRange(Tensor x, Tensor idx, long lo, long hi) {
    long v = x.size(x.rank() - 1);
    double[] id = idx.raw();
    double[] src = x.raw();
    double[] out = new double[id.length];
    for (int p = 0; p < id.length; p++) {
      long c = integer(id[p], "pick_range", idx, p);
      out[p] = c >= lo && c < hi ? src[(int) (p * v + c - lo)] : 0;
    }
    return out;
  }

  /**
   * Row v of the result sums the gradient rows g[p] where ids[p] = lo + v, in position order; ids
   * outside [lo, hi) add nothing.
   */
  static double[] embeddingGrad(Tensor g, Tensor ids, long lo, long hi) {
    int h = (int) g.size(g.rank() - 1);
    double[] grad = g.raw();
    double[] id = ids.raw();
    double[] out = new double[Tensor.checkedNumel(new long[] {hi - lo, h})];
    for (int p = 0; p < id.length; p++) {
      long v = integer(id[p], "embedding_grad", ids, p);
      if (v < lo || v >= hi) {
        continue;
      }
      int row = (int) ((v - lo) * h);
      for (int j = 0; j < h; j++) {
        out[row + j] += grad[p * h + j];
      }
    }
    return out;
  }

  /** Whether each id lies outside [lo, hi). */
  static double[] outOfRange(Tensor ids, long lo, long hi) {
    double[] id = ids.raw();
    double[] out = new double[id.length];
    for (int p = 0; p < id.length; p++) {
      out[p] = id[p] < lo || id[p] >= hi ? 1 : 0;
    }
    return out;
  }

  private static long integer(double v, String op, Tensor ids, int p) {
    if (v != Math.rint(v) || Double.isInfinite(v)) {
      throw new EvalException(
          op + " id " + v + " at position " + position(ids, p) + " is not an integer");
    }
    return (long) v;
  }

  private static long wrap(long v, long size, String what, Tensor ids, int p) {
    long w = v < 0 ? v + size : v;
    if (w < 0 || w >= size) {
      throw new EvalException(
          "index "
              + v
              + " at position "
              + position(ids, p)
              + " is outside the "
              + size
              + " "
              + what
              + " it indexes");
    }
    return w;
  }

  private static String position(Tensor ids, int p) {
    return Arrays.toString(Tensor.unflatten(ids.rawShape(), p));
  }
}
