package dev.entangle.lower.aten;

import dev.entangle.core.Dtype;
import dev.entangle.core.Op;
import dev.entangle.core.ShapeException;
import dev.entangle.core.Steps;
import dev.entangle.core.TermBuilder;
import dev.entangle.core.TypeInfo;
import dev.entangle.graph.Arg;
import dev.entangle.graph.Node;
import dev.entangle.lower.LoweringException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** One node being lowered: typed access to its arguments and small term-building helpers. */
public final class Call {
  public final Node node;
  public final AtenNormalizer.Inputs inputs;
  public final TermBuilder b;

  /** The dtype the node's meta records, or -1. */
  public final int outDtype;

  public Call(Node node, AtenNormalizer.Inputs inputs, TermBuilder b) {
    this.node = node;
    this.inputs = inputs;
    this.b = b;
    this.outDtype = node.type() != null ? Dtype.code(node.type().dtype()) : -1;
  }

  /** Positional argument i, else keyword {@code key}, else null. */
  public Arg arg(int i, String key) {
    Arg a = node.arg(i);
    if (a == null && key != null) {
      a = node.kwarg(key);
    }
    return a;
  }

  public boolean has(int i, String key) {
    Arg a = arg(i, key);
    return a != null && !(a instanceof Arg.NoneArg);
  }

  public int tensor(int i, String key) {
    Arg a = arg(i, key);
    if (a instanceof Arg.NodeRef r) {
      return value(r);
    }
    throw new LoweringException(
        "argument " + describe(i, key) + " must be a tensor, got " + show(a));
  }

  public int value(Arg.NodeRef r) {
    int[] v = inputs.of(r.name());
    if (v.length != 1) {
      throw new LoweringException(
          "argument " + r.name() + " is a tuple; index it with getitem first");
    }
    return v[0];
  }

  public boolean isTensor(int i, String key) {
    return arg(i, key) instanceof Arg.NodeRef;
  }

  public long integer(int i, String key, Long dflt) {
    Arg a = arg(i, key);
    if (a instanceof Arg.IntArg v) {
      return v.value();
    }
    if (a instanceof Arg.BoolArg v) {
      return v.value() ? 1 : 0;
    }
    if ((a == null || a instanceof Arg.NoneArg) && dflt != null) {
      return dflt;
    }
    throw new LoweringException(
        "argument " + describe(i, key) + " must be an integer, got " + show(a));
  }

  public boolean bool(int i, String key, boolean dflt) {
    Arg a = arg(i, key);
    if (a == null || a instanceof Arg.NoneArg) {
      return dflt;
    }
    if (a instanceof Arg.BoolArg v) {
      return v.value();
    }
    if (a instanceof Arg.IntArg v) {
      return v.value() != 0;
    }
    throw new LoweringException(
        "argument " + describe(i, key) + " must be a boolean, got " + show(a));
  }

  public double number(int i, String key, Double dflt) {
    Arg a = arg(i, key);
    if (a instanceof Arg.IntArg v) {
      return v.value();
    }
    if (a instanceof Arg.FloatArg v) {
      return v.value();
    }
    if (a instanceof Arg.BoolArg v) {
      return v.value() ? 1 : 0;
    }
    if ((a == null || a instanceof Arg.NoneArg) && dflt != null) {
      return dflt;
    }
    throw new LoweringException(
        "argument " + describe(i, key) + " must be a number, got " + show(a));
  }

  /**
   * Argument i (or {@code key}) as one value per dim of {@code d}: a list of d integers, or one
   * integer (or a list of one) for every dim, as torch's pooling and convolutions take them.
   */
  public long[] perDim(int i, String key, int d) {
    long[] v = ints(i, key);
    if (v.length != 1 && v.length != d) {
      throw new LoweringException(
          "argument " + describe(i, key) + " holds " + v.length + " values for " + d + " dims");
    }
    long[] out = new long[d];
    for (int k = 0; k < d; k++) {
      out[k] = v[v.length == 1 ? 0 : k];
    }
    return out;
  }

  public long[] ints(int i, String key) {
    Arg a = arg(i, key);
    if (a instanceof Arg.IntArg v) {
      return new long[] {v.value()};
    }
    if (a instanceof Arg.ListArg l) {
      long[] out = new long[l.items().size()];
      for (int k = 0; k < out.length; k++) {
        if (!(l.items().get(k) instanceof Arg.IntArg v)) {
          if (l.items().get(k) instanceof Arg.SymArg) {
            throw new LoweringException(
                "symbolic sizes are not supported by the checker yet (argument "
                    + describe(i, key)
                    + ")");
          }
          throw new LoweringException(
              "argument " + describe(i, key) + " must be a list of integers, got " + show(a));
        }
        out[k] = v.value();
      }
      return out;
    }
    throw new LoweringException(
        "argument " + describe(i, key) + " must be a list of integers, got " + show(a));
  }

  public List<Arg> list(int i, String key) {
    Arg a = arg(i, key);
    if (a instanceof Arg.ListArg l) {
      return l.items();
    }
    throw new LoweringException("argument " + describe(i, key) + " must be a list, got " + show(a));
  }

  public int dtypeArg(int i, String key) {
    Arg a = arg(i, key);
    if (a instanceof Arg.DtypeArg d) {
      int code = Dtype.code(d.dtype());
      if (code < 0) {
        throw new LoweringException("unknown dtype " + d.dtype());
      }
      return code;
    }
    return -1;
  }

  /**
   * A value with no defined contents, unique to this node: uninitialized memory, a random sample.
   */
  public int undefined(long[] shape, int dtype) {
    long[] attrs = new long[shape.length + 2];
    attrs[0] = undefId();
    attrs[1] = dtype;
    System.arraycopy(shape, 0, attrs, 2, shape.length);
    return b.add(Op.UNDEF, attrs);
  }

  /** A deterministic id unique to this node among all graphs of a run. */
  private long undefId() {
    return ((long) inputs.graphId() << 32) | node.index();
  }

  public TypeInfo type(int h) {
    return b.type(h);
  }

  public long[] shape(int h) {
    return b.type(h).shape();
  }

  /** A dim argument normalized against a rank (negative counts from the end). */
  public int dim(long d, int rank) {
    long r = rank == 0 ? 1 : rank;
    if (d < -r || d >= r) {
      throw new LoweringException("dim " + d + " out of range for a " + rank + "-d tensor");
    }
    return (int) (d < 0 ? d + r : d);
  }

  /** The int64 positions {@code start, start + step, ...} below {@code end} (an arange). */
  public int arange(long start, long end, long step) {
    return b.add(Op.ARANGE, new long[] {start, end, step, Dtype.INT64.code()});
  }

  /**
   * The running sums of x along dim d: with d moved last and the other dims flattened into rows,
   * the rows times the upper triangular matrix of ones ({@code [i, j]} is 1 where {@code i <= j}),
   * and the layout put back.
   */
  public int cumsum(int x, int d) {
    long[] s = shape(x);
    int rank = s.length;
    long n = s[d];
    LayoutLowering.DimMove move = LayoutLowering.DimMove.toLast(rank, d);
    long[] movedShape = move.shape(s);
    long rows = 1;
    for (int i = 0; i < rank - 1; i++) {
      rows *= movedShape[i];
    }
    int dtype = type(x).dtype();
    int index = arange(0, n, 1);
    long[] square = {n, n};
    int upper =
        cast(
            b.add(
                Op.LE,
                new long[0],
                expandTo(reshape(index, new long[] {n, 1}), square),
                expandTo(reshape(index, new long[] {1, n}), square)),
            dtype);
    int moved = LayoutLowering.permute(this, x, move.order());
    int sums = b.add(Op.MATMUL, new long[0], reshape(moved, new long[] {rows, n}), upper);
    return LayoutLowering.permute(this, reshape(sums, movedShape), move.inverse());
  }

  /**
   * The boolean [rows, cols] mask true where column - row is at least k ({@code upper}) or at most
   * k: a comparison of the shifted row positions with the column positions, of the given integer
   * dtype (a causal mask is {@code upper = false, k = 0}: each row sees the columns up to its own).
   */
  public int triangle(long rows, long cols, long k, boolean upper, int dtype) {
    long[] grid = {rows, cols};
    int row = b.add(Op.ARANGE, new long[] {k, rows + k, 1, dtype});
    int shifted = expandTo(reshape(row, new long[] {rows, 1}), grid);
    int col = b.add(Op.ARANGE, new long[] {0, cols, 1, dtype});
    int column = expandTo(reshape(col, new long[] {1, cols}), grid);
    return upper // j - i >= k: j >= i + k; j - i <= k: i + k >= j
        ? b.add(Op.GE, new long[0], column, shifted)
        : b.add(Op.GE, new long[0], shifted, column);
  }

  public int scalar(double v, int dtype) {
    return b.add(Op.SCALAR, new long[] {Double.doubleToLongBits(canonical(v)), dtype});
  }

  /**
   * A test of finiteness ({@code isfinite}, {@code is_finite}, {@code isinf}, {@code isnan}; the
   * function's name without its namespace) of a value the lowering shows finite ({@link
   * dev.entangle.core.NumberFacts}): its constant answer. Null for another function or a value that
   * may not be finite.
   */
  public Integer finitenessTest(String function, int x) {
    Boolean answer =
        switch (function) {
          case "isfinite", "is_finite" -> true;
          case "isinf", "isnan" -> false;
          default -> null;
        };
    if (answer == null || !(b instanceof Steps.Recorder r)) {
      return null;
    }
    if (!r.finite(x)) {
      r.undecided();
      return null;
    }
    r.decidedTest();
    return filled(answer ? 1 : 0, Dtype.BOOL.code(), shape(x));
  }

  /** A tensor of the given shape holding v everywhere. */
  public int filled(double v, int dtype, long[] shape) {
    return b.filled(v, dtype, shape);
  }

  /**
   * {@code h} with blocks filled with {@code v} (of its dtype) before and after it along {@code
   * dim}: the concat of the blocks and h; h itself when both counts are 0.
   */
  public int pad(int h, int dim, long before, long after, double v) {
    if (before == 0 && after == 0) {
      return h;
    }
    List<Integer> parts = new ArrayList<>(3);
    int dtype = type(h).dtype();
    if (before > 0) {
      parts.add(filled(v, dtype, withSize(shape(h), dim, before)));
    }
    parts.add(h);
    if (after > 0) {
      parts.add(filled(v, dtype, withSize(shape(h), dim, after)));
    }
    return b.add(Op.CONCAT, new long[] {dim}, parts.stream().mapToInt(Integer::intValue).toArray());
  }

  private static long[] withSize(long[] shape, int dim, long size) {
    long[] out = shape.clone();
    out[dim] = size;
    return out;
  }

  public int expandTo(int h, long[] shape) {
    return Arrays.equals(shape(h), shape) ? h : b.add(Op.EXPAND, shape, h);
  }

  public int cast(int h, int dtype) {
    return dtype < 0 || type(h).dtype() == dtype ? h : b.add(Op.CAST, new long[] {dtype}, h);
  }

  public int reshape(int h, long[] shape) {
    return Arrays.equals(shape(h), shape) ? h : b.add(Op.RESHAPE, shape, h);
  }

  public static double canonical(double v) {
    return v == 0.0 ? 0.0 : v; // -0.0 and 0.0 are one constant
  }

  public static long[] broadcastShape(long[] x, long[] y) {
    int n = Math.max(x.length, y.length);
    long[] out = new long[n];
    for (int i = 0; i < n; i++) {
      long a = i - (n - x.length) >= 0 ? x[i - (n - x.length)] : 1;
      long c = i - (n - y.length) >= 0 ? y[i - (n - y.length)] : 1;
      if (a != c && a != 1 && c != 1) {
        throw new ShapeException(
            "cannot broadcast " + Arrays.toString(x) + " with " + Arrays.toString(y));
      }
      out[i] = a == 1 ? c : a;
    }
    return out;
  }

  public List<Integer> tensorList(int i, String key) {
    List<Integer> out = new ArrayList<>();
    for (Arg a : list(i, key)) {
      if (!(a instanceof Arg.NodeRef r)) {
        throw new LoweringException("argument " + describe(i, key) + " must be a list of tensors");
      }
      out.add(value(r));
    }
    return out;
  }

  private String describe(int i, String key) {
    return key != null ? "'" + key + "' (position " + i + ")" : "at position " + i;
  }

  private static String show(Arg a) {
    return a == null ? "nothing" : a.toString();
  }
}
