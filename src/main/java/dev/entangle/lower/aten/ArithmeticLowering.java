package dev.entangle.lower.aten;

import dev.entangle.core.Dtype;
import dev.entangle.core.Op;
import dev.entangle.core.numeric.Tensor;
import dev.entangle.graph.Arg;
import dev.entangle.lower.LoweringException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Element-wise arithmetic, comparisons, selection, matrix products, embeddings, constants and the
 * value-preserving calls (clone, copies, dropout). Returns null for calls it does not handle.
 */
final class ArithmeticLowering {

  int[] lower(String base, Call c) {
    Integer h = single(base, c);
    return h == null ? null : new int[] {h};
  }

  private Integer single(String base, Call c) {
    if (AtenNormalizer.UNINITIALIZED.contains(base)) {
      return c.undefined(c.node.type() != null ? c.node.type().sizes() : new long[0], c.outDtype);
    }
    switch (base) {
      case "aten.add", "aten.sub" -> {
        Op op = base.equals("aten.add") ? Op.ADD : Op.SUB;
        int[] xy = operands(c, 0, 1, true);
        double alpha = c.number(2, "alpha", 1.0);
        int y = alpha == 1.0 ? xy[1] : scaled(c, xy[1], alpha);
        return c.b.add(op, new long[0], xy[0], y);
      }
      case "aten.rsub" -> {
        int[] xy = operands(c, 0, 1, true);
        double alpha = c.number(2, "alpha", 1.0);
        int x = alpha == 1.0 ? xy[0] : scaled(c, xy[0], alpha);
        return c.b.add(Op.SUB, new long[0], xy[1], x);
      }
      case "aten.mul" -> {
        return binary(c, Op.MUL, true);
      }
      case "aten.div" -> {
        if (c.has(2, "rounding_mode")) {
          return null;
        }
        return binary(c, Op.DIV, true);
      }
      case "aten.pow" -> {
        return binary(c, Op.POW, true);
      }
      case "aten.maximum" -> {
        return binary(c, Op.MAXIMUM, true);
      }
      case "aten.minimum" -> {
        return binary(c, Op.MINIMUM, true);
      }
      case "aten.eq", "aten.ne", "aten.lt", "aten.le", "aten.gt", "aten.ge" -> {
        Op op = Op.valueOf(base.substring(5).toUpperCase(Locale.ROOT));
        return binary(c, op, false);
      }
      case "aten.bitwise_and", "aten.logical_and", "aten.__and__" -> {
        return binary(c, Op.AND, false);
      }
      case "aten.bitwise_or", "aten.logical_or", "aten.__or__" -> {
        return binary(c, Op.OR, false);
      }
      case "aten.bitwise_xor", "aten.logical_xor" -> {
        return binary(c, Op.XOR, false);
      }
      case "aten.neg" -> {
        return unary(c, Op.NEG);
      }
      case "aten.exp" -> {
        return unary(c, Op.EXP);
      }
      case "aten.log" -> {
        return unary(c, Op.LOG);
      }
      case "aten.relu" -> {
        return unary(c, Op.RELU);
      }
      case "aten.silu" -> {
        return unary(c, Op.SILU);
      }
      case "aten.tanh" -> {
        return unary(c, Op.TANH);
      }
      case "aten.sigmoid" -> {
        return unary(c, Op.SIGMOID);
      }
      case "aten.rsqrt" -> {
        return unary(c, Op.RSQRT);
      }
      case "aten.sqrt" -> {
        return unary(c, Op.SQRT);
      }
      case "aten.abs" -> {
        return unary(c, Op.ABS);
      }
      case "aten.reciprocal" -> {
        return unary(c, Op.RECIPROCAL);
      }
      case "aten.bitwise_not", "aten.logical_not" -> {
        return unary(c, Op.NOT);
      }
      case "aten.gelu" -> {
        Arg a = c.arg(1, "approximate");
        String approximate = a instanceof Arg.StrArg s ? s.value() : "none";
        if (!approximate.equals("none") && !approximate.equals("tanh")) {
          throw new LoweringException(
              "gelu's approximate='" + approximate + "' is neither 'none' nor 'tanh'");
        }
        long tanh = approximate.equals("tanh") ? 1 : 0;
        return c.b.add(Op.GELU, new long[] {tanh}, c.tensor(0, "self"));
      }
      case "aten.where" -> {
        return where(c);
      }
      case "aten.masked_fill" -> {
        int x = c.tensor(0, "self");
        long[] shape = c.shape(x);
        int mask = c.expandTo(c.tensor(1, "mask"), shape);
        int v =
            c.isTensor(2, "value")
                ? c.expandTo(c.cast(c.tensor(2, "value"), c.type(x).dtype()), shape)
                : c.filled(c.number(2, "value", null), c.type(x).dtype(), shape);
        return c.b.add(Op.WHERE, new long[0], mask, v, x);
      }
      case "aten.mm", "aten.bmm", "aten.matmul" -> {
        return matmul(c, c.tensor(0, "self"), c.tensor(1, "mat2"));
      }
      case "aten.addmm" -> {
        int m = matmul(c, c.tensor(1, "mat1"), c.tensor(2, "mat2"));
        return affine(
            c, m, c.tensor(0, "self"), c.number(3, "beta", 1.0), c.number(4, "alpha", 1.0));
      }
      case "aten.baddbmm", "aten.addbmm" -> {
        if (base.equals("aten.addbmm")) {
          return null;
        }
        int m = matmul(c, c.tensor(1, "batch1"), c.tensor(2, "batch2"));
        return affine(
            c, m, c.tensor(0, "self"), c.number(3, "beta", 1.0), c.number(4, "alpha", 1.0));
      }
      case "aten.linear" -> {
        int x = c.tensor(0, "input");
        int w = c.tensor(1, "weight");
        int wt = c.b.add(Op.PERMUTE, new long[] {1, 0}, w);
        int m = matmul(c, x, wt);
        return c.has(2, "bias")
            ? c.b.add(Op.ADD, new long[0], m, c.expandTo(c.tensor(2, "bias"), c.shape(m)))
            : m;
      }
      case "aten.embedding" -> {
        return c.b.add(Op.EMBEDDING, new long[0], c.tensor(0, "weight"), c.tensor(1, "indices"));
      }
      case "aten.embedding_dense_backward" -> {
        // (grad_output, indices, num_weights, padding_idx, scale_grad_by_freq); a padding row or
        // frequency scaling keep it opaque
        if (c.integer(3, "padding_idx", -1L) >= 0 || c.bool(4, "scale_grad_by_freq", false)) {
          return null;
        }
        return c.b.add(
            Op.EMBEDDING_GRAD,
            new long[] {0, c.integer(2, "num_weights", null)},
            c.tensor(0, "grad_output"),
            c.tensor(1, "indices"));
      }
      case "aten.index" -> {
        return index(c);
      }
      case "aten.triu", "aten.tril" -> {
        return triangle(c, base.equals("aten.triu"));
      }
      case "aten.index_put", "aten.index_put_", "aten._index_put_impl" -> {
        return indexPut(c);
      }
      case "aten.clone",
          "aten.detach",
          "aten.alias",
          "aten.contiguous",
          "aten.lift_fresh_copy",
          "aten.lift_fresh",
          "aten.view_as_real_copy",
          "aten.clone_preserve_strides" -> {
        return c.tensor(0, null);
      }
      case "aten._to_copy", "aten.to", "aten._to_dtype", "aten.type_as" -> {
        int x = c.tensor(0, "self");
        int dt = c.dtypeArg(1, "dtype");
        return c.cast(x, dt >= 0 ? dt : c.outDtype);
      }
      case "aten.copy", "aten.copy_" -> {
        int dst = c.tensor(0, "self");
        int src = c.tensor(1, "src");
        return c.expandTo(c.cast(src, c.type(dst).dtype()), c.shape(dst));
      }
      case "aten.zeros",
          "aten.ones",
          "aten.full",
          "aten.new_zeros",
          "aten.new_ones",
          "aten.new_full" -> {
        return constant(base, c);
      }
      case "aten.zeros_like", "aten.ones_like", "aten.full_like" -> {
        int x = c.tensor(0, "self");
        int dt = c.dtypeArg(base.equals("aten.full_like") ? 2 : 1, "dtype");
        double v =
            base.equals("aten.zeros_like")
                ? 0
                : base.equals("aten.ones_like") ? 1 : c.number(1, "fill_value", null);
        return c.filled(v, dt >= 0 ? dt : c.type(x).dtype(), c.shape(x));
      }
      case "aten.fill" -> {
        int x = c.tensor(0, "self");
        if (c.isTensor(1, "value")) {
          return null; // fill.Tensor: rare in traced graphs
        }
        return c.filled(c.number(1, "value", null), c.type(x).dtype(), c.shape(x));
      }
      case "aten.scalar_tensor" -> {
        return c.scalar(
            c.number(0, "s", null), c.outDtype >= 0 ? c.outDtype : Dtype.FLOAT32.code());
      }
      case "aten.arange" -> {
        return arange(c);
      }
      default -> {
        return null;
      }
    }
  }

  private static int unary(Call c, Op op) {
    return c.b.add(op, new long[0], c.tensor(0, "self"));
  }

  /** Both operands as tensors of the broadcast shape; numbers become constants. */
  private static int[] operands(Call c, int i, int j, boolean promote) {
    boolean ti = c.isTensor(i, "self");
    boolean tj = c.isTensor(j, "other");
    int x;
    int y;
    if (ti && tj) {
      x = c.tensor(i, "self");
      y = c.tensor(j, "other");
    } else if (ti) {
      x = c.tensor(i, "self");
      y =
          c.scalar(
              c.number(j, "other", null),
              promote && c.outDtype >= 0 ? c.outDtype : c.type(x).dtype());
    } else if (tj) {
      y = c.tensor(j, "other");
      x =
          c.scalar(
              c.number(i, "self", null),
              promote && c.outDtype >= 0 ? c.outDtype : c.type(y).dtype());
    } else {
      throw new LoweringException("neither operand is a tensor");
    }
    if (promote && c.outDtype >= 0) {
      x = c.cast(x, c.outDtype);
      y = c.cast(y, c.outDtype);
    } else if (!ti && tj) {
      x = c.cast(x, c.type(y).dtype());
    }
    long[] shape = Call.broadcastShape(c.shape(x), c.shape(y));
    return new int[] {c.expandTo(x, shape), c.expandTo(y, shape)};
  }

  private static int binary(Call c, Op op, boolean promote) {
    int[] xy = operands(c, 0, 1, promote);
    return c.b.add(op, new long[0], xy[0], xy[1]);
  }

  private static int scaled(Call c, int x, double factor) {
    return c.b.add(Op.MUL, new long[0], x, c.filled(factor, c.type(x).dtype(), c.shape(x)));
  }

  private static int where(Call c) {
    int cond = c.tensor(0, "condition");
    int dt = c.outDtype;
    int x = c.isTensor(1, "self") ? c.tensor(1, "self") : c.scalar(c.number(1, "self", null), dt);
    int y =
        c.isTensor(2, "other") ? c.tensor(2, "other") : c.scalar(c.number(2, "other", null), dt);
    x = c.cast(x, dt);
    y = c.cast(y, dt);
    long[] shape = Call.broadcastShape(Call.broadcastShape(c.shape(cond), c.shape(x)), c.shape(y));
    return c.b.add(
        Op.WHERE, new long[0], c.expandTo(cond, shape), c.expandTo(x, shape), c.expandTo(y, shape));
  }

  /** matmul with PyTorch's handling of 1-d operands and of a 2-d right operand. */
  static int matmul(Call c, int a, int b) {
    long[] sa = c.shape(a);
    long[] sb = c.shape(b);
    if (sa.length == 1 || sb.length == 1) {
      int a2 = sa.length == 1 ? c.reshape(a, new long[] {1, sa[0]}) : a;
      int b2 = sb.length == 1 ? c.reshape(b, new long[] {sb[0], 1}) : b;
      int m = c.b.add(Op.MATMUL, new long[0], a2, b2);
      long[] sm = c.shape(m);
      long[] out = sm;
      if (sb.length == 1) {
        out = Arrays.copyOf(out, out.length - 1);
      }
      if (sa.length == 1) {
        long[] o = new long[out.length - 1];
        System.arraycopy(out, 0, o, 0, out.length - 2);
        if (out.length >= 1) {
          o[o.length - 1 >= 0 ? o.length - 1 : 0] = out[out.length - 1];
        }
        out = sb.length == 1 ? new long[0] : o;
      }
      return c.reshape(m, out);
    }
    return c.b.add(Op.MATMUL, new long[0], a, b);
  }

  /** beta * input + alpha * m, where beta = 0 ignores input entirely (as PyTorch documents). */
  private static int affine(Call c, int m, int input, double beta, double alpha) {
    int scaledM = alpha == 1.0 ? m : scaled(c, m, alpha);
    if (beta == 0.0) {
      return scaledM;
    }
    int in = c.expandTo(input, c.shape(m));
    if (beta != 1.0) {
      in = scaled(c, in, beta);
    }
    return c.b.add(Op.ADD, new long[0], scaledM, in);
  }

  /** {@code index.Tensor(w, [ids])}: a row lookup when only the first dim is indexed. */
  private static Integer index(Call c) {
    int x = c.tensor(0, "self");
    var idx = c.list(1, "indices");
    if (idx.size() == 2
        && idx.get(0) instanceof Arg.NodeRef r0
        && idx.get(1) instanceof Arg.NodeRef r1
        && c.type(x).rank() == 2) {
      int i0 = c.value(r0);
      int i1 = c.value(r1);
      if (Arrays.equals(c.shape(i0), c.shape(i1))) {
        return c.b.add(Op.INDEX2, new long[0], x, i0, i1);
      }
    }
    return alongOneDim(c, x, idx);
  }

  /**
   * {@code x[..., ids, ...]}: one integer index tensor at dim d, every index before it {@code None}
   * (a full slice) and none after. The result has ids' dims where x had dim d. Indices the builder
   * knows are the slices they pick (a negative one counts from the end, as torch does); others are
   * looked up as rows of x moved to the front (an embedding, which refuses ids outside [0, n)).
   * Null for any other indexing (several index tensors, a boolean mask).
   */
  private static Integer alongOneDim(Call c, int x, List<Arg> idx) {
    long[] s = c.shape(x);
    int d = -1;
    for (int i = 0; i < idx.size(); i++) {
      if (idx.get(i) instanceof Arg.NodeRef) {
        if (d >= 0) {
          return null;
        }
        d = i;
      } else if (!(idx.get(i) instanceof Arg.NoneArg)) {
        return null;
      }
    }
    if (d < 0 || d >= s.length) {
      return null;
    }
    int ids = c.value((Arg.NodeRef) idx.get(d));
    int dt = c.type(ids).dtype();
    if (dt != Dtype.INT64.code() && dt != Dtype.INT32.code()) {
      return null; // a boolean mask picks a number of entries the values decide
    }
    Tensor fixed = c.b.known(ids);
    int picked = fixed == null ? -1 : FixedIndexLowering.selectWrapped(c, x, d, fixed);
    if (picked < 0 && d == 0 && s.length == 2) {
      return c.b.add(Op.EMBEDDING, new long[0], x, ids);
    }
    long[] is = c.shape(ids);
    if (picked < 0) {
      picked =
          LayoutLowering.selectAlong(c, x, d, c.reshape(ids, new long[] {c.type(ids).numel()}));
    }
    long[] out = new long[s.length - 1 + is.length];
    System.arraycopy(s, 0, out, 0, d);
    System.arraycopy(is, 0, out, d, is.length);
    System.arraycopy(s, d + 1, out, d + is.length, s.length - d - 1);
    return c.reshape(picked, out);
  }

  /**
   * {@code triu(x, k)} and {@code tril(x, k)}: x where column - row is at least k (upper) or at
   * most k (lower) in its last two dims, zero elsewhere; the mask is built from aranges, a
   * constant.
   */
  private static Integer triangle(Call c, boolean upper) {
    int x = c.tensor(0, "self");
    long[] s = c.shape(x);
    if (s.length < 2) {
      throw new LoweringException(
          (upper ? "triu" : "tril") + " takes a tensor of at least 2 dims, got " + s.length);
    }
    long k = c.integer(1, "diagonal", 0L);
    int keep = c.triangle(s[s.length - 2], s[s.length - 1], k, upper, Dtype.INT64.code());
    int dt = c.type(x).dtype();
    return c.b.add(Op.WHERE, new long[0], c.expandTo(keep, s), x, c.filled(0, dt, s));
  }

  /**
   * {@code index_put(x, [mask], v)} with one boolean mask over x's leading dims and no
   * accumulation: {@code where(mask, v, x)}, the mask broadcast over the remaining dims.
   */
  private static Integer indexPut(Call c) {
    int x = c.tensor(0, "self");
    var idx = c.list(1, "indices");
    if (c.bool(3, "accumulate", false)
        || idx.size() != 1
        || !(idx.get(0) instanceof Arg.NodeRef r)) {
      return null;
    }
    int mask = c.value(r);
    long[] xs = c.shape(x);
    long[] ms = c.shape(mask);
    if (c.type(mask).dtype() != Dtype.BOOL.code() || ms.length > xs.length) {
      return null;
    }
    for (int i = 0; i < ms.length; i++) {
      if (ms[i] != xs[i]) {
        return null;
      }
    }
    long[] padded = Arrays.copyOf(ms, xs.length);
    Arrays.fill(padded, ms.length, xs.length, 1);
    int m = c.expandTo(c.reshape(mask, padded), xs);
    int v =
        c.isTensor(2, "values")
            ? c.expandTo(c.cast(c.tensor(2, "values"), c.type(x).dtype()), xs)
            : c.filled(c.number(2, "values", null), c.type(x).dtype(), xs);
    return c.b.add(Op.WHERE, new long[0], m, v, x);
  }

  private static int constant(String base, Call c) {
    boolean isNew = base.startsWith("aten.new_");
    int shapeAt = isNew ? 1 : 0;
    long[] shape = c.ints(shapeAt, "size");
    double v;
    if (base.endsWith("zeros")) {
      v = 0;
    } else if (base.endsWith("ones")) {
      v = 1;
    } else {
      v = c.number(shapeAt + 1, "fill_value", null);
    }
    int dt = c.dtypeArg(-1, "dtype");
    if (dt < 0) {
      dt = c.outDtype >= 0 ? c.outDtype : Dtype.FLOAT32.code();
    }
    return c.filled(v, dt, shape);
  }

  private static int arange(Call c) {
    long start = 0;
    long end;
    long step = 1;
    String target = c.node.target();
    if (target.endsWith(".default") || c.node.args().size() == 1) {
      end = (long) c.number(0, "end", null);
    } else {
      start = (long) c.number(0, "start", null);
      end = (long) c.number(1, "end", null);
      step = (long) c.number(2, "step", 1.0);
    }
    int dt = c.outDtype >= 0 ? c.outDtype : Dtype.INT64.code();
    return c.b.add(Op.ARANGE, new long[] {start, end, step, dt});
  }
}
