package dev.entangle.refine;

import dev.entangle.graph.Node;
import dev.entangle.ops.Op;
import dev.entangle.ops.ShapeException;
import dev.entangle.ops.Shapes;
import dev.entangle.ops.TypeInfo;
import dev.entangle.relation.Expr;
import dev.entangle.util.InputException;
import java.util.ArrayList;
import java.util.List;

/**
 * Converts between the relation syntax ({@link Expr}) and clean core terms ({@link GdExpr}):
 * resolves {@code rK.NAME} to G_d values, normalizes dims against shapes and checks that the
 * expression is well-shaped; and prints terms back in the relation syntax.
 */
final class RelationTerms {
  private final GdModel m;
  private final Shapes shapes;

  RelationTerms(GdModel m, Shapes shapes) {
    this.m = m;
    this.shapes = shapes;
  }

  /** A typed term: the expression and its type. */
  record Typed(GdExpr expr, TypeInfo type) {}

  /**
   * Resolves an expression over G_d tensors.
   *
   * @param where how to name the entry in messages, e.g. {@code ri.json: relations[3]}
   */
  Typed resolve(Expr e, String where) {
    try {
      return convert(e, where);
    } catch (ShapeException ex) {
      throw new InputException(where + ": the expression " + e + " does not fit: " + ex.getMessage() + ".");
    }
  }

  private Typed convert(Expr e, String where) {
    if (e instanceof Expr.Tensor t) {
      if (t.rank() == null) {
        throw new InputException(where + ": '" + t.name() + "' must name a G_d tensor as rK." + t.name()
            + " (K the rank); G_d expressions cannot refer to G_s tensors.");
      }
      int r = t.rank();
      if (r < 0 || r >= m.gd.worldSize()) {
        throw new InputException(where + ": rank " + r + " in r" + r + "." + t.name() + " does not exist; G_d has "
            + m.gd.worldSize() + " rank(s).");
      }
      Node n = m.graph(r).resolve(t.name());
      int id = n == null ? -1 : m.id(r, n.name());
      if (id < 0) {
        throw new InputException(where + ": G_d rank " + r + " has no tensor named or tagged '" + t.name()
            + "'; check the name against the G_d file " + m.gd.source() + ".");
      }
      return new Typed(GdExpr.tensor(id), m.types.get(id));
    }
    if (e instanceof Expr.Concat c) {
      List<Typed> parts = new ArrayList<>();
      for (Expr p : c.parts()) {
        parts.add(convert(p, where));
      }
      int d = dim(c.dim(), parts.get(0).type().rank(), e, where);
      return node(Op.CONCAT, new long[] {d}, parts);
    }
    if (e instanceof Expr.Slice s) {
      Typed x = convert(s.input(), where);
      int d = dim(s.dim(), x.type().rank(), e, where);
      long n = x.type().size(d);
      long start = clamp(s.start() < 0 ? s.start() + n : s.start(), n);
      long end = clamp(s.end() < 0 ? s.end() + n : s.end(), n);
      return node(Op.SLICE, new long[] {d, start, Math.max(start, end), s.step()}, List.of(x));
    }
    if (e instanceof Expr.Reduce r) {
      List<Typed> parts = new ArrayList<>();
      for (Expr p : r.operands()) {
        parts.add(convert(p, where));
      }
      Op op = switch (r.kind()) {
        case SUM -> Op.SUMN;
        case MAX -> Op.MAXN;
        case MIN -> Op.MINN;
      };
      return node(op, new long[0], parts);
    }
    if (e instanceof Expr.Transpose t) {
      Typed x = convert(t.input(), where);
      int n = x.type().rank();
      int a = dim(t.dim0(), n, e, where);
      int b = dim(t.dim1(), n, e, where);
      long[] p = new long[n];
      for (int i = 0; i < n; i++) {
        p[i] = i;
      }
      p[a] = b;
      p[b] = a;
      return node(Op.PERMUTE, p, List.of(x));
    }
    if (e instanceof Expr.Permute p) {
      Typed x = convert(p.input(), where);
      long[] dims = new long[p.dims().size()];
      for (int i = 0; i < dims.length; i++) {
        dims[i] = dim(p.dims().get(i), x.type().rank(), e, where);
      }
      return node(Op.PERMUTE, dims, List.of(x));
    }
    if (e instanceof Expr.Reshape r) {
      Typed x = convert(r.input(), where);
      long[] sizes = r.shape().stream().mapToLong(Long::longValue).toArray();
      long known = 1;
      int free = -1;
      for (int i = 0; i < sizes.length; i++) {
        if (sizes[i] == -1) {
          free = i;
        } else {
          known *= sizes[i];
        }
      }
      if (free >= 0 && known != 0) {
        sizes[free] = x.type().numel() / known;
      }
      return node(Op.RESHAPE, sizes, List.of(x));
    }
    if (e instanceof Expr.Squeeze s) {
      Typed x = convert(s.input(), where);
      int d = dim(s.dim(), x.type().rank(), e, where);
      long[] in = x.type().shape();
      if (in[d] != 1) {
        return x;
      }
      long[] out = new long[in.length - 1];
      for (int i = 0, k = 0; i < in.length; i++) {
        if (i != d) {
          out[k++] = in[i];
        }
      }
      return node(Op.RESHAPE, out, List.of(x));
    }
    Expr.Unsqueeze u = (Expr.Unsqueeze) e;
    Typed x = convert(u.input(), where);
    long[] in = x.type().shape();
    int d = dim(u.dim(), in.length + 1, e, where);
    long[] out = new long[in.length + 1];
    for (int i = 0, k = 0; i < out.length; i++) {
      out[i] = i == d ? 1 : in[k++];
    }
    return node(Op.RESHAPE, out, List.of(x));
  }

  private Typed node(Op op, long[] attrs, List<Typed> kids) {
    TypeInfo[] types = new TypeInfo[kids.size()];
    List<GdExpr> exprs = new ArrayList<>();
    for (int i = 0; i < types.length; i++) {
      types[i] = kids.get(i).type();
      exprs.add(kids.get(i).expr());
    }
    TypeInfo t = shapes.infer(op.id(), attrs, types);
    return new Typed(new GdExpr(op.id(), attrs, exprs), t);
  }

  private static int dim(long d, int rank, Expr e, String where) {
    if (d < -rank || d >= rank) {
      throw new InputException(where + ": dim " + d + " in " + e + " is out of range for a " + rank + "-d tensor.");
    }
    return (int) (d < 0 ? d + rank : d);
  }

  private static long clamp(long v, long n) {
    return Math.max(0, Math.min(v, n));
  }

  /** The relation-syntax form of a clean term. */
  Expr toExpr(GdExpr t) {
    Op op = Op.of(t.op());
    List<Expr> kids = new ArrayList<>();
    for (GdExpr c : t.children()) {
      kids.add(toExpr(c));
    }
    long[] a = t.attrs();
    switch (op) {
      case TENSOR: {
        GdModel.Value v = m.value(t.tensorId());
        return new Expr.Tensor(v.rank(), v.node().name());
      }
      case CONCAT:
        return new Expr.Concat(kids, (int) a[0]);
      case SLICE:
        return new Expr.Slice(kids.get(0), (int) a[0], a[1], a[2], a[3]);
      case SUMN:
        return new Expr.Reduce(Expr.ReduceKind.SUM, kids);
      case MAXN:
        return new Expr.Reduce(Expr.ReduceKind.MAX, kids);
      case MINN:
        return new Expr.Reduce(Expr.ReduceKind.MIN, kids);
      case PERMUTE: {
        int moved = 0;
        int d0 = -1;
        int d1 = -1;
        for (int i = 0; i < a.length; i++) {
          if (a[i] != i) {
            moved++;
            if (d0 < 0) {
              d0 = i;
            } else {
              d1 = i;
            }
          }
        }
        if (moved == 2) {
          return new Expr.Transpose(kids.get(0), d0, d1);
        }
        List<Integer> dims = new ArrayList<>();
        for (long x : a) {
          dims.add((int) x);
        }
        return new Expr.Permute(kids.get(0), dims);
      }
      case RESHAPE: {
        long[] in = childShape(t.children().get(0));
        Integer sq = oneDimDifference(in, a);
        if (sq != null && a.length == in.length - 1) {
          return new Expr.Squeeze(kids.get(0), sq);
        }
        if (sq != null && a.length == in.length + 1) {
          return new Expr.Unsqueeze(kids.get(0), sq);
        }
        List<Long> shape = new ArrayList<>();
        for (long x : a) {
          shape.add(x);
        }
        return new Expr.Reshape(kids.get(0), shape);
      }
      default:
        throw new IllegalStateException("not a clean operator: " + op);
    }
  }

  private long[] childShape(GdExpr e) {
    if (e.isTensor()) {
      return m.types.get(e.tensorId()).shape();
    }
    TypeInfo[] types = new TypeInfo[e.children().size()];
    for (int i = 0; i < types.length; i++) {
      types[i] = TypeInfo.tensor(childShape(e.children().get(i)), -1);
    }
    return shapes.infer(e.op(), e.attrs(), types).shape();
  }

  /** The dim where two shapes differ by one size-1 dim, or null. */
  private static Integer oneDimDifference(long[] in, long[] out) {
    long[] longer = in.length > out.length ? in : out;
    long[] shorter = in.length > out.length ? out : in;
    if (longer.length != shorter.length + 1) {
      return null;
    }
    for (int d = 0; d < longer.length; d++) {
      if (longer[d] != 1) {
        continue;
      }
      boolean ok = true;
      for (int i = 0, k = 0; i < longer.length; i++) {
        if (i == d) {
          continue;
        }
        if (longer[i] != shorter[k++]) {
          ok = false;
          break;
        }
      }
      if (ok) {
        return d;
      }
    }
    return null;
  }
}
