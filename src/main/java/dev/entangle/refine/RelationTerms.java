package dev.entangle.refine;

import dev.entangle.graph.Node;
import dev.entangle.ops.Op;
import dev.entangle.ops.ShapeException;
import dev.entangle.ops.Shapes;
import dev.entangle.ops.TypeInfo;
import dev.entangle.relation.Expr;
import dev.entangle.relation.ExprPrinter;
import dev.entangle.relation.ExprShapes;
import dev.entangle.util.InputException;
import java.util.ArrayList;
import java.util.List;

/**
 * Converts between the relation syntax ({@link Expr}) and clean core terms ({@link GdExpr}):
 * resolves {@code rK.NAME} to G_d values; and prints terms back in the relation syntax.
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
   * Resolves an expression over G_d tensors. The relation file has been validated against both
   * graphs ({@link dev.entangle.relation.RelationValidator}), so names resolve and shapes fit;
   * dims, slice bounds and a reshape's -1 are normalized by {@link ExprShapes}.
   *
   * @param where how to name the entry in messages, e.g. {@code ri.json: relations[3]}
   */
  Typed resolve(Expr e, String where) {
    Expr normalized = ExprShapes.normalize(e, t -> m.gd.rank(t.rank()).resolve(t.name()).type(), where);
    try {
      return convert(normalized);
    } catch (ShapeException ex) {
      throw new InputException(where + ": the expression " + ExprPrinter.print(e) + " does not fit: "
          + ex.getMessage() + ".");
    }
  }

  private Typed convert(Expr e) {
    if (e instanceof Expr.Tensor t) {
      Node n = m.graph(t.rank()).resolve(t.name());
      int id = m.id(t.rank(), n.name());
      return new Typed(GdExpr.tensor(id), m.types.get(id));
    }
    if (e instanceof Expr.Concat c) {
      return node(Op.CONCAT, new long[] {c.dim()}, convertAll(c.parts()));
    }
    if (e instanceof Expr.Slice s) {
      return node(Op.SLICE, new long[] {s.dim(), s.start(), s.end(), s.step()}, List.of(convert(s.input())));
    }
    if (e instanceof Expr.Reduce r) {
      Op op = switch (r.kind()) {
        case SUM -> Op.SUMN;
        case MAX -> Op.MAXN;
        case MIN -> Op.MINN;
      };
      return node(op, new long[0], convertAll(r.operands()));
    }
    if (e instanceof Expr.Transpose t) {
      Typed x = convert(t.input());
      long[] p = new long[x.type().rank()];
      for (int i = 0; i < p.length; i++) {
        p[i] = i;
      }
      p[t.dim0()] = t.dim1();
      p[t.dim1()] = t.dim0();
      return node(Op.PERMUTE, p, List.of(x));
    }
    if (e instanceof Expr.Permute p) {
      return node(Op.PERMUTE, p.dims().stream().mapToLong(Integer::longValue).toArray(), List.of(convert(p.input())));
    }
    if (e instanceof Expr.Reshape r) {
      return node(Op.RESHAPE, r.shape().stream().mapToLong(Long::longValue).toArray(), List.of(convert(r.input())));
    }
    if (e instanceof Expr.Squeeze s) {
      Typed x = convert(s.input());
      long[] in = x.type().shape();
      if (in.length == 0 || in[s.dim()] != 1) {
        return x; // squeezing a dim that is not 1 changes nothing
      }
      long[] out = new long[in.length - 1];
      for (int i = 0, k = 0; i < in.length; i++) {
        if (i != s.dim()) {
          out[k++] = in[i];
        }
      }
      return node(Op.RESHAPE, out, List.of(x));
    }
    Expr.Unsqueeze u = (Expr.Unsqueeze) e;
    Typed x = convert(u.input());
    long[] in = x.type().shape();
    long[] out = new long[in.length + 1];
    for (int i = 0, k = 0; i < out.length; i++) {
      out[i] = i == u.dim() ? 1 : in[k++];
    }
    return node(Op.RESHAPE, out, List.of(x));
  }

  private List<Typed> convertAll(List<Expr> parts) {
    List<Typed> out = new ArrayList<>();
    for (Expr p : parts) {
      out.add(convert(p));
    }
    return out;
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
