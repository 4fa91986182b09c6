package dev.entangle.lower;

import dev.entangle.core.CoreProgram;
import dev.entangle.core.CoreTerm;
import dev.entangle.core.CoreValue;
import dev.entangle.core.Dtype;
import dev.entangle.core.Op;
import dev.entangle.core.Shapes;
import dev.entangle.core.TypeInfo;
import dev.entangle.relation.Expr;
import dev.entangle.relation.ExprPrinter;
import java.util.ArrayList;
import java.util.List;

/**
 * Renders core terms over G_d values for people: clean terms in the relation syntax (so an output
 * relation can be read back as an input relation), any other term in a readable operator form for
 * failure explanations.
 */
public final class TermText {
  private final CoreProgram gd;
  private final Shapes shapes;

  public TermText(CoreProgram gd) {
    this.gd = gd;
    this.shapes = new Shapes(gd.table(), id -> gd.value((int) id).type());
  }

  /** A clean term in the relation syntax, e.g. {@code concat(r0.x, r1.x, dim=0)}. */
  public String relation(CoreTerm t) {
    return ExprPrinter.print(toExpr(t));
  }

  /** The relation-syntax form of a clean term. */
  public Expr toExpr(CoreTerm t) {
    Op op = Op.of(t.op());
    List<Expr> kids = new ArrayList<>();
    for (CoreTerm c : t.children()) {
      kids.add(toExpr(c));
    }
    long[] a = t.attrs();
    switch (op) {
      case TENSOR:
        {
          CoreValue v = gd.value(t.tensorId());
          return new Expr.Tensor(v.graph(), v.name());
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
      case SCALE:
        {
          CoreTerm in = t.children().get(0);
          boolean derived = Op.derivedScale(a);
          if (!derived && a[0] == 1 && in.op() == Op.SUMN.id() && a[1] == in.children().size()) {
            return new Expr.Reduce(Expr.ReduceKind.MEAN, ((Expr.Reduce) kids.get(0)).operands());
          }
          return new Expr.Scale(kids.get(0), a[0], a[1], derived);
        }
      case PERMUTE:
        {
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
      case RESHAPE:
        {
          long[] in = shapeOf(t.children().get(0));
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

  /**
   * Any term over G_d values, for failure explanations (not a relation syntax); long terms are cut.
   */
  public String describe(CoreTerm t) {
    StringBuilder sb = new StringBuilder();
    describe(t, sb, 0);
    return sb.toString();
  }

  private void describe(CoreTerm t, StringBuilder sb, int depth) {
    Op op = Op.of(t.op());
    if (op == Op.TENSOR) {
      sb.append(gd.value(t.tensorId()).label());
      return;
    }
    if (op == Op.SCALAR) {
      sb.append(Double.longBitsToDouble(t.attrs()[0]));
      return;
    }
    if (depth > 12 || sb.length() > 600) {
      sb.append("...");
      return;
    }
    long[] a = t.attrs();
    if (op == Op.EW1 || op == Op.EW2) {
      sb.append(gd.table().opaqueTarget((int) a[0])).append('(');
      for (int i = 0; i < t.children().size(); i++) {
        sb.append(i == 0 ? "" : ", ");
        describe(t.children().get(i), sb, depth + 1);
      }
      sb.append(')');
      return;
    }
    sb.append(gd.table().name(t.op()));
    if (a.length > 0 && op != null) {
      sb.append('[').append(attrs(op, a)).append(']');
    }
    sb.append('(');
    for (int i = 0; i < t.children().size(); i++) {
      sb.append(i == 0 ? "" : ", ");
      describe(t.children().get(i), sb, depth + 1);
    }
    sb.append(')');
  }

  /** A core operator's attributes, floats and dtypes shown as such. */
  static String attrs(Op op, long[] a) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < a.length; i++) {
      sb.append(i == 0 ? "" : ", ");
      boolean isFloat =
          (op == Op.FULL && i == 0)
              || (op == Op.SCALAR && i == 0)
              || ((op == Op.LN_NORMALIZE || op == Op.LN_RSTD || op == Op.RMS_NORMALIZE) && i == 1);
      boolean isDtype = (op == Op.CAST && i == 0) || ((op == Op.FULL || op == Op.SCALAR) && i == 1);
      sb.append(
          isFloat
              ? String.valueOf(Double.longBitsToDouble(a[i]))
              : isDtype ? Dtype.name(a[i]) : String.valueOf(a[i]));
    }
    return sb.toString();
  }

  private long[] shapeOf(CoreTerm e) {
    if (e.isTensor()) {
      return gd.value(e.tensorId()).type().shape();
    }
    TypeInfo[] types = new TypeInfo[e.children().size()];
    for (int i = 0; i < types.length; i++) {
      types[i] = TypeInfo.tensor(shapeOf(e.children().get(i)), -1);
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
