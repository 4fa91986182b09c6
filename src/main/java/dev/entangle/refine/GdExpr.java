package dev.entangle.refine;

import dev.entangle.egraph.Term;
import dev.entangle.ops.Op;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * A clean expression over G_d values, in core-language form: a {@link Op#TENSOR} leaf (attribute:
 * the value id) or a clean operator over such expressions. What relations hold for G_s tensors.
 */
record GdExpr(int op, long[] attrs, List<GdExpr> children) {
  GdExpr {
    children = List.copyOf(children);
  }

  static GdExpr tensor(int id) {
    return new GdExpr(Op.TENSOR.id(), new long[] {id}, List.of());
  }

  static GdExpr of(Term t) {
    List<GdExpr> kids = new ArrayList<>(t.children().size());
    for (Term c : t.children()) {
      kids.add(of(c));
    }
    return new GdExpr(t.op(), t.attrs(), kids);
  }

  boolean isTensor() {
    return op == Op.TENSOR.id();
  }

  int tensorId() {
    return (int) attrs[0];
  }

  /** Adds the expression to an e-graph; returns its class. */
  int add(EGraphBuilder b) {
    int[] kids = new int[children.size()];
    for (int i = 0; i < kids.length; i++) {
      kids[i] = children.get(i).add(b);
    }
    return b.add(op, attrs, kids);
  }

  /** Collects the ids of the G_d values it reads. */
  void leaves(Set<Integer> out) {
    if (isTensor()) {
      out.add(tensorId());
    }
    for (GdExpr c : children) {
      c.leaves(out);
    }
  }

  int size() {
    int n = 1;
    for (GdExpr c : children) {
      n += c.size();
    }
    return n;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof GdExpr e && e.op == op && Arrays.equals(e.attrs, attrs) && e.children.equals(children);
  }

  @Override
  public int hashCode() {
    return (op * 31 + Arrays.hashCode(attrs)) * 31 + children.hashCode();
  }
}
