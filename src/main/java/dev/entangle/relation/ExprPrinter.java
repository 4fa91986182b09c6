package dev.entangle.relation;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Prints expressions in the canonical keyword form of the relation syntax, e.g. {@code concat(r0.a,
 * r1.a, dim=0)} or {@code slice(r0.x, dim=0, start=0, end=128)}. Names that are not plain are
 * backquoted, so {@code ExprParser.parse(print(e))} equals {@code e} (for names without a
 * backquote).
 */
public final class ExprPrinter {
  private ExprPrinter() {}

  public static String print(Expr e) {
    StringBuilder out = new StringBuilder();
    print(e, out);
    return out.toString();
  }

  private static void print(Expr e, StringBuilder out) {
    if (e instanceof Expr.Tensor t) {
      out.append(t.rank() == null ? Names.gs(t.name()) : Names.gd(t.rank(), t.name()));
    } else if (e instanceof Expr.Concat c) {
      call("concat", c.parts(), out).append(", dim=").append(c.dim()).append(')');
    } else if (e instanceof Expr.Slice s) {
      call("slice", List.of(s.input()), out)
          .append(", dim=")
          .append(s.dim())
          .append(", start=")
          .append(s.start())
          .append(", end=")
          .append(s.end());
      if (s.step() != 1) {
        out.append(", step=").append(s.step());
      }
      out.append(')');
    } else if (e instanceof Expr.Reduce r) {
      call(r.kind().fn(), r.operands(), out).append(')');
    } else if (e instanceof Expr.Scale s) {
      call("scale", List.of(s.input()), out).append(", ").append(s.num());
      if (s.den() != 1) {
        out.append(", ").append(s.den());
      }
      out.append(')');
    } else if (e instanceof Expr.Transpose t) {
      call("transpose", List.of(t.input()), out)
          .append(", ")
          .append(t.dim0())
          .append(", ")
          .append(t.dim1())
          .append(')');
    } else if (e instanceof Expr.Permute p) {
      call("permute", List.of(p.input()), out).append(", ").append(list(p.dims())).append(')');
    } else if (e instanceof Expr.Reshape r) {
      call("reshape", List.of(r.input()), out).append(", ").append(list(r.shape())).append(')');
    } else if (e instanceof Expr.Squeeze s) {
      call("squeeze", List.of(s.input()), out).append(", ").append(s.dim()).append(')');
    } else if (e instanceof Expr.Unsqueeze u) {
      call("unsqueeze", List.of(u.input()), out).append(", ").append(u.dim()).append(')');
    } else {
      throw new IllegalArgumentException("unknown expression " + e);
    }
  }

  /** Appends {@code fn(e1, e2} and leaves the call open. */
  private static StringBuilder call(String fn, List<Expr> operands, StringBuilder out) {
    out.append(fn).append('(');
    for (int i = 0; i < operands.size(); i++) {
      if (i > 0) {
        out.append(", ");
      }
      print(operands.get(i), out);
    }
    return out;
  }

  private static String list(List<? extends Number> items) {
    return items.stream().map(String::valueOf).collect(Collectors.joining(", ", "[", "]"));
  }
}
