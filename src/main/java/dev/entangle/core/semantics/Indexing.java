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
 * Operators that index with integer tensors: row lookups ({@code embedding}, {@code
 * embedding_range}), element picks ({@code index2}, {@code pick}, {@code pick_range}), the table
 * gradient ({@code embedding_grad}) and the range mask ({@code out_of_range}). An id outside what
 * it indexes is an {@link EvalException} naming the id and its position, as PyTorch's kernels
 * refuse it; {@code index2} and {@code pick} count negative ids from the end, as advanced indexing
 * does.
 */
public final class Indexing implements Semantics {
  /** The family's semantics, named by its operators in {@link Op}. */
  public static final Indexing SEMANTICS = new Indexing();

  private Indexing() {}

  /** Rows of w[V, H] selected by ids: result ids.shape + [H]. */
  public static double[] embedding(Tensor w, Tensor ids) {
    return rows(w, ids, 0, w.size(0), false);
  }

  /** Rows (id - lo) of the shard w for ids in [lo, hi), zero rows elsewhere. */
  public static double[] embeddingRange(Tensor w, Tensor ids, long lo, long hi) {
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
  public static double[] index2(Tensor x, Tensor i0, Tensor i1) {
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

  /**
   * {@code x[..., idx]}: for each position of idx, the element of x's last dim it names. As torch's
   * {@code gather} and {@code nll_loss}, an id outside {@code [0, V)} has no value (negative ids do
   * not wrap; advanced indexing, which wraps them, is {@code index2}).
   */
  public static double[] pick(Tensor x, Tensor idx) {
    long v = x.size(x.rank() - 1);
    double[] id = idx.raw();
    double[] src = x.raw();
    double[] out = new double[id.length];
    for (int p = 0; p < id.length; p++) {
      long c = inRange(integer(id[p], "pick", idx, p), v, "entries of the last dim", idx, p);
      out[p] = src[(int) (p * v + c)];
    }
    return out;
  }

  /** Where lo <= idx < hi, {@code x[..., idx - lo]}; elsewhere 0. */
  public static double[] pickRange(Tensor x, Tensor idx, long lo, long hi) {
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
  public static double[] embeddingGrad(Tensor g, Tensor ids, long lo, long hi) {
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
  public static double[] outOfRange(Tensor ids, long lo, long hi) {
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

  private static long inRange(long v, long size, String what, Tensor ids, int p) {
    return checked(v, size, what, ids, p, v);
  }

  private static long wrap(long v, long size, String what, Tensor ids, int p) {
    return checked(v < 0 ? v + size : v, size, what, ids, p, v);
  }

  /** The index w (the id v, wrapped or not) when it lies in {@code [0, size)}. */
  private static long checked(long w, long size, String what, Tensor ids, int p, long v) {
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

  @Override
  public TypeInfo type(Op op, long[] a, TypeInfo[] c, Context context) {
    return switch (op) {
      case EMBEDDING -> embeddingType(c[0], c[1]);
      case EMBEDDING_RANGE -> {
        if (a[1] - a[0] != c[0].size(0)) {
          throw new ShapeException(
              "embedding_range ["
                  + a[0]
                  + ", "
                  + a[1]
                  + ") over a table of "
                  + c[0].size(0)
                  + " rows");
        }
        yield embeddingType(c[0], c[1]);
      }
      case EMBEDDING_GRAD -> {
        long[] g = c[0].shape();
        long[] ids = c[1].shape();
        if (a[1] < a[0]
            || g.length != ids.length + 1
            || !Arrays.equals(Arrays.copyOf(g, ids.length), ids)) {
          throw new ShapeException(
              "embedding_grad ["
                  + a[0]
                  + ", "
                  + a[1]
                  + ") of a gradient "
                  + Arrays.toString(g)
                  + " by ids of shape "
                  + Arrays.toString(ids));
        }
        yield TypeInfo.tensor(new long[] {a[1] - a[0], g[g.length - 1]}, c[0].dtype());
      }
      case OUT_OF_RANGE -> TypeInfo.tensor(c[0].shape(), Dtype.BOOL.code());
      case INDEX2 -> {
        if (c[0].rank() != 2 || !Arrays.equals(c[1].shape(), c[2].shape())) {
          throw new ShapeException(
              "index of a "
                  + c[0].rank()
                  + "-d tensor by indices of shapes "
                  + Arrays.toString(c[1].shape())
                  + " and "
                  + Arrays.toString(c[2].shape()));
        }
        yield TypeInfo.tensor(c[1].shape(), c[0].dtype());
      }
      default -> {
        long[] x = c[0].shape();
        long[] idx = c[1].shape();
        if (x.length != idx.length + 1 || !Arrays.equals(Arrays.copyOf(x, idx.length), idx)) {
          throw new ShapeException(
              "pick from " + Arrays.toString(x) + " by ids of shape " + Arrays.toString(idx));
        }
        if (op == Op.PICK_RANGE && a[1] - a[0] != x[x.length - 1]) {
          throw new ShapeException(
              "pick_range [" + a[0] + ", " + a[1] + ") over a last dim of " + x[x.length - 1]);
        }
        yield TypeInfo.tensor(idx, c[0].dtype());
      }
    };
  }

  private static TypeInfo embeddingType(TypeInfo w, TypeInfo ids) {
    if (w.rank() != 2) {
      throw new ShapeException("embedding table must be 2-d, got " + Arrays.toString(w.shape()));
    }
    long[] out = Arrays.copyOf(ids.shape(), ids.rank() + 1);
    out[ids.rank()] = w.size(1);
    return TypeInfo.tensor(out, w.dtype());
  }

  @Override
  public double[] compute(Op op, long[] a, Tensor[] in, TypeInfo out, Context context) {
    return switch (op) {
      case EMBEDDING -> embedding(in[0], in[1]);
      case EMBEDDING_RANGE -> embeddingRange(in[0], in[1], a[0], a[1]);
      case INDEX2 -> index2(in[0], in[1], in[2]);
      case PICK -> pick(in[0], in[1]);
      case PICK_RANGE -> pickRange(in[0], in[1], a[0], a[1]);
      case EMBEDDING_GRAD -> embeddingGrad(in[0], in[1], a[0], a[1]);
      default -> outOfRange(in[0], a[0], a[1]);
    };
  }

  @Override
  public String shapeRule(Op op) {
    return switch (op) {
      case EMBEDDING, EMBEDDING_RANGE ->
          "table w[V, H] (V = [hi] - [lo] for a range) and ids[...]: ids' shape + [H]";
      case EMBEDDING_GRAD -> "gradient g[..., H] and ids[...]: [[hi] - [lo], H]";
      case OUT_OF_RANGE -> "the ids' shape; bool";
      case INDEX2 -> "a 2-d x and two index tensors of one shape: that shape";
      default -> "x[..., n] and ids[...] (n = [hi] - [lo] for a range): the ids' shape";
    };
  }
}
