package dev.entangle.core;

import java.util.Arrays;
import java.util.function.LongFunction;

/**
 * Shape and dtype inference for the core language: the type of an operator applied to operands of
 * known types, or a {@link ShapeException} saying why the operands do not fit.
 */
public final class Shapes {
  private final OpTable table;
  private final LongFunction<TypeInfo> tensorTypes;

  /**
   * @param table names of opaque operators and their result types
   * @param tensorTypes the type of each G_d tensor id (for {@link Op#TENSOR} leaves)
   */
  public Shapes(OpTable table, LongFunction<TypeInfo> tensorTypes) {
    this.table = table;
    this.tensorTypes = tensorTypes;
  }

  /** The type of {@code op(attrs; children)}. */
  public TypeInfo infer(int opId, long[] a, TypeInfo[] c) {
    if (OpTable.isOpaque(opId)) {
      return table.opaqueType(opId);
    }
    Op op = Op.of(opId);
    for (int i = 0; i < c.length; i++) {
      if (c[i].isTuple() && op != Op.ITEM) {
        throw new ShapeException(op.symbol() + " applied to a tuple");
      }
    }
    switch (op.kind) {
      case UNARY:
        if (op == Op.CAST) {
          return TypeInfo.tensor(c[0].shape(), (int) a[0]);
        }
        if (op == Op.EW1) {
          return TypeInfo.tensor(c[0].shape(), table.opaqueType((int) a[0]).dtype());
        }
        return TypeInfo.tensor(c[0].shape(), c[0].dtype());
      case BINARY:
      case COMPARE:
        sameShapes(op, c);
        if (op == Op.EW2) {
          return TypeInfo.tensor(c[0].shape(), table.opaqueType((int) a[0]).dtype());
        }
        return TypeInfo.tensor(
            c[0].shape(), op.kind == Op.Kind.COMPARE ? Dtype.BOOL.code() : c[0].dtype());
      case TERNARY:
        sameShapes(op, c);
        return TypeInfo.tensor(c[1].shape(), c[1].dtype());
      case COMBINE:
        if (c.length == 0) {
          throw new ShapeException(op.symbol() + " of nothing");
        }
        sameShapes(op, c);
        return TypeInfo.tensor(c[0].shape(), c[0].dtype());
      default:
        break;
    }
    return switch (op) {
      case TENSOR -> tensorTypes.apply(a[0]);
      case SCALAR -> TypeInfo.constant(new long[0], (int) a[1], Double.longBitsToDouble(a[0]));
      case FULL -> TypeInfo.constant(tail(a, 2), (int) a[1], Double.longBitsToDouble(a[0]));
      case ARANGE -> TypeInfo.tensor(new long[] {arangeLength(a[0], a[1], a[2])}, (int) a[3]);
      case UNDEF -> TypeInfo.tensor(tail(a, 2), (int) a[1]);
      case EXPAND -> expand(c[0], a);
      case RESHAPE -> reshape(c[0], a);
      case PERMUTE -> permute(c[0], a);
      case SLICE -> slice(c[0], a);
      case CONCAT -> concat(c, (int) a[0]);
      case RSUM, RMEAN, RAMAX, RAMIN -> reduce(op, c[0], a);
      case ARGMAX ->
          TypeInfo.tensor(reduceShape(c[0], a[0] != 0, new long[] {a[1]}), Dtype.INT64.code());
      case SOFTMAX, LOG_SOFTMAX -> {
        checkDim(c[0], a[0], op);
        yield TypeInfo.tensor(c[0].shape(), c[0].dtype());
      }
      case SOFTMAX_BACKWARD, LOG_SOFTMAX_BACKWARD -> {
        checkDim(c[0], a[0], op);
        sameShapes(op, c);
        yield TypeInfo.tensor(c[0].shape(), c[0].dtype());
      }
      case LN_NORMALIZE, RMS_NORMALIZE -> {
        lastDims(c[0], a[0], op);
        yield TypeInfo.tensor(c[0].shape(), c[0].dtype());
      }
      case LN_MEAN, LN_RSTD -> {
        lastDims(c[0], a[0], op);
        long[] s = c[0].shape().clone();
        for (int i = s.length - (int) a[0]; i < s.length; i++) {
          s[i] = 1;
        }
        yield TypeInfo.tensor(s, c[0].dtype());
      }
      case MATMUL -> matmul(c[0], c[1]);
      case EMBEDDING -> embedding(c[0], c[1]);
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
        yield embedding(c[0], c[1]);
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
      case ROPE -> {
        if (c[0].rank() < 1 || c[0].size(c[0].rank() - 1) % a[0] != 0) {
          throw new ShapeException(
              "rope with head size " + a[0] + " of " + Arrays.toString(c[0].shape()));
        }
        yield TypeInfo.tensor(c[0].shape(), c[0].dtype());
      }
      case ATTENTION -> {
        long[] q = c[0].shape();
        long[] k = c[1].shape();
        if (q.length != 3
            || k.length != 3
            || !Arrays.equals(k, c[2].shape())
            || q[0] != k[0]
            || q[2] != k[2]
            || k[1] == 0
            || q[1] % k[1] != 0) {
          throw new ShapeException(
              "attention of q " + Arrays.toString(q) + " over k, v " + Arrays.toString(k));
        }
        yield TypeInfo.tensor(q, c[0].dtype());
      }
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
      case PICK, PICK_RANGE -> {
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
      case ITEM -> {
        if (!c[0].isTuple()
            || a[0] < 0
            || a[0] >= c[0].items().size()
            || c[0].items().get((int) a[0]) == null) {
          throw new ShapeException("item " + a[0] + " of " + c[0]);
        }
        yield c[0].items().get((int) a[0]);
      }
      default -> throw new ShapeException("no shape rule for " + op.symbol());
    };
  }

  private static void sameShapes(Op op, TypeInfo[] c) {
    for (int i = 1; i < c.length; i++) {
      if (!Arrays.equals(c[0].shape(), c[i].shape())) {
        throw new ShapeException(
            op.symbol()
                + " of operands with shapes "
                + Arrays.toString(c[0].shape())
                + " and "
                + Arrays.toString(c[i].shape()));
      }
    }
  }

  static long[] tail(long[] a, int from) {
    return Arrays.copyOfRange(a, from, a.length);
  }

  /** Number of elements of {@code arange(start, end, step)}. */
  public static long arangeLength(long start, long end, long step) {
    if (step == 0) {
      throw new ShapeException("arange with step 0");
    }
    long n =
        step > 0
            ? Math.floorDiv(end - start + step - 1, step)
            : Math.floorDiv(start - end - step - 1, -step);
    return Math.max(0, n);
  }

  private static TypeInfo expand(TypeInfo x, long[] sizes) {
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

  private static TypeInfo reshape(TypeInfo x, long[] sizes) {
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

  private static TypeInfo permute(TypeInfo x, long[] dims) {
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

  private static TypeInfo slice(TypeInfo x, long[] a) {
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

  private static TypeInfo concat(TypeInfo[] c, int d) {
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

  private static TypeInfo reduce(Op op, TypeInfo x, long[] a) {
    long[] dims = tail(a, 1);
    for (long d : dims) {
      checkDim(x, d, op);
    }
    return TypeInfo.tensor(reduceShape(x, a[0] != 0, dims), x.dtype());
  }

  private static long[] reduceShape(TypeInfo x, boolean keep, long[] dims) {
    long[] s = x.shape();
    boolean[] red = new boolean[s.length];
    for (long d : dims) {
      red[(int) d] = true;
    }
    long[] out = new long[s.length];
    int n = 0;
    for (int i = 0; i < s.length; i++) {
      if (!red[i]) {
        out[n++] = s[i];
      } else if (keep) {
        out[n++] = 1;
      }
    }
    return Arrays.copyOf(out, n);
  }

  private static void checkDim(TypeInfo x, long d, Op op) {
    if (d < 0 || d >= x.rank()) {
      throw new ShapeException(op.symbol() + " over dim " + d + " of a " + x.rank() + "-d tensor");
    }
  }

  private static void lastDims(TypeInfo x, long k, Op op) {
    if (k < 1 || k > x.rank()) {
      throw new ShapeException(
          op.symbol() + " over the last " + k + " dims of a " + x.rank() + "-d tensor");
    }
  }

  private static TypeInfo matmul(TypeInfo a, TypeInfo b) {
    long[] x = a.shape();
    long[] y = b.shape();
    if (x.length < 2 || y.length < 2) {
      throw new ShapeException("matmul needs operands of at least 2 dims");
    }
    long k = x[x.length - 1];
    if (y[y.length - 2] != k) {
      throw new ShapeException(
          "matmul of "
              + Arrays.toString(x)
              + " and "
              + Arrays.toString(y)
              + ": inner sizes differ");
    }
    if (y.length != 2) {
      if (y.length != x.length) {
        throw new ShapeException("matmul of " + Arrays.toString(x) + " and " + Arrays.toString(y));
      }
      for (int i = 0; i < x.length - 2; i++) {
        if (x[i] != y[i]) {
          throw new ShapeException(
              "matmul of "
                  + Arrays.toString(x)
                  + " and "
                  + Arrays.toString(y)
                  + ": batch sizes differ");
        }
      }
    }
    long[] out = x.clone();
    out[out.length - 1] = y[y.length - 1];
    return TypeInfo.tensor(out, a.dtype());
  }

  private static TypeInfo embedding(TypeInfo w, TypeInfo ids) {
    if (w.rank() != 2) {
      throw new ShapeException("embedding table must be 2-d, got " + Arrays.toString(w.shape()));
    }
    long[] out = Arrays.copyOf(ids.shape(), ids.rank() + 1);
    out[ids.rank()] = w.size(1);
    return TypeInfo.tensor(out, w.dtype());
  }
}
