package dev.entangle.rules.linear;

import dev.entangle.core.Op;
import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;
import dev.entangle.rules.NativeRule;
import java.util.HashMap;
import java.util.Map;

/**
 * Concats whose parts are each a rational multiple, by one factor, of a G_d tensor: {@code
 * concat(p_1, ..., p_n) = scale(concat(q_1, ..., q_n), ρ)} when every part's linear form is ρ times
 * the form of a class holding a G_d tensor {@code q_i} of its type. This is how a sequential
 * gradient relates to the ranks' gradients under data parallelism (the sequential loss averages
 * over the whole batch, each rank's over its own rows, so each block of the gradient is the rank's
 * gradient scaled by the rank's share), a clean expression the other lemmas can only reach when the
 * chain of operations ends in a sum. Exact: equal forms mean equal values, and a concat of
 * multiples by one factor is that multiple of the concat.
 */
final class ScaledParts {
  /** A concat class and the G_d tensor classes its parts are multiples of, by one factor. */
  record Match(int cls, long dim, int[] tensors, Rational factor) implements LinearForms.Step {}

  private final EGraph<TypeInfo> g;
  private final FormTable table;
  private final int[] forms;

  /** Classes holding a G_d tensor, by their form divided by its first coefficient. */
  private final Map<Integer, Integer> byDirection = new HashMap<>();

  ScaledParts(EGraph<TypeInfo> g, FormTable table, int[] forms) {
    this.g = g;
    this.table = table;
    this.forms = forms;
    for (int c : g.classIds()) {
      if (g.holds(c, Op.TENSOR.id())) {
        Direction d = direction(c);
        if (d != null) {
          byDirection.putIfAbsent(d.form(), c);
        }
      }
    }
  }

  /** A form divided by its first coefficient, and that coefficient. */
  private record Direction(int form, Rational coefficient) {}

  private Direction direction(int cls) {
    int id = forms[g.find(cls)];
    if (id < 0) {
      return null;
    }
    LinearForm f = table.formAt(id);
    if (f.size() == 0 || f.hasConstantTerm()) {
      return null;
    }
    Rational first = f.coefficient(0);
    LinearForm unit = f.times(first.reciprocal());
    return unit == null ? null : new Direction(table.form(unit), first);
  }

  /** The matches among the concat nodes, in node order. */
  void search(NativeRule.Found<LinearForms.Step> out) {
    if (byDirection.isEmpty()) {
      return;
    }
    for (EGraph.Held held : g.nodesWithOp(Op.CONCAT.id())) {
      Match m = match(held.cls(), held.node());
      if (m != null) {
        out.match(m);
      }
    }
  }

  private Match match(int cls, ENode n) {
    int[] tensors = new int[n.arity()];
    Rational factor = null;
    boolean same = true;
    for (int i = 0; i < n.arity(); i++) {
      int part = g.find(n.child(i));
      Direction d = direction(part);
      Integer q = d == null ? null : byDirection.get(d.form());
      if (q == null || !sameType(g.data(part), g.data(q))) {
        return null;
      }
      Direction dq = direction(q);
      Rational ratio = d.coefficient().times(dq.coefficient().reciprocal());
      if (factor != null && !factor.equals(ratio)) {
        return null;
      }
      factor = ratio;
      tensors[i] = g.find(q);
      same &= tensors[i] == part;
    }
    return same || factor == null ? null : new Match(cls, n.attr(0), tensors, factor);
  }

  private static boolean sameType(TypeInfo a, TypeInfo b) {
    return !a.isTuple() && !b.isTuple() && a.dtype() == b.dtype() && a.sameShape(b);
  }

  /** Adds {@code scale(concat(tensors), factor)} and returns its class. */
  static int build(EGraph<TypeInfo> g, Match m) {
    int concat =
        m.tensors().length == 1
            ? m.tensors()[0]
            : g.add(new ENode(Op.CONCAT.id(), new long[] {m.dim()}, m.tensors()));
    if (m.factor().isOne()) {
      return concat;
    }
    return g.add(
        new ENode(
            Op.SCALE.id(),
            Op.scaleAttrs(m.factor().num(), m.factor().den(), true),
            new int[] {concat}));
  }
}
