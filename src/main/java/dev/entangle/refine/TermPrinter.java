package dev.entangle.refine;

import dev.entangle.egraph.Term;
import dev.entangle.ops.Dtype;
import dev.entangle.ops.Op;

/** Prints any core term over G_d values, for failure explanations (not a relation syntax). */
final class TermPrinter {
  private TermPrinter() {}

  static String print(Term t, Context ctx) {
    StringBuilder sb = new StringBuilder();
    print(t, ctx, sb, 0);
    return sb.toString();
  }

  private static void print(Term t, Context ctx, StringBuilder sb, int depth) {
    Op op = Op.of(t.op());
    if (op == Op.TENSOR) {
      sb.append(ctx.gd.value((int) t.attr(0)).label());
      return;
    }
    if (op == Op.SCALAR) {
      sb.append(Double.longBitsToDouble(t.attr(0)));
      return;
    }
    if (depth > 12 || sb.length() > 600) {
      sb.append("...");
      return;
    }
    long[] a = t.attrs();
    if (op == Op.EW1 || op == Op.EW2) {
      sb.append(ctx.table.opaqueTarget((int) a[0])).append('(');
      for (int i = 0; i < t.children().size(); i++) {
        sb.append(i == 0 ? "" : ", ");
        print(t.child(i), ctx, sb, depth + 1);
      }
      sb.append(')');
      return;
    }
    sb.append(ctx.table.name(t.op()));
    if (a.length > 0 && op != null) {
      sb.append('[');
      for (int i = 0; i < a.length; i++) {
        sb.append(i == 0 ? "" : ", ");
        boolean isFloat = (op == Op.FULL && i == 0) || ((op == Op.LN_NORMALIZE || op == Op.LN_RSTD || op == Op.RMS_NORMALIZE) && i == 1);
        boolean isDtype = (op == Op.CAST && i == 0) || (op == Op.FULL && i == 1);
        sb.append(isFloat ? String.valueOf(Double.longBitsToDouble(a[i])) : isDtype ? Dtype.name(a[i]) : String.valueOf(a[i]));
      }
      sb.append(']');
    }
    sb.append('(');
    for (int i = 0; i < t.children().size(); i++) {
      sb.append(i == 0 ? "" : ", ");
      print(t.child(i), ctx, sb, depth + 1);
    }
    sb.append(')');
  }
}
