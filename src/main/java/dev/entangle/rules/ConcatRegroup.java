package dev.entangle.rules;

import dev.entangle.core.Op;
import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.Applier.Unions;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code concat(a, b, c, d) = concat(concat(a, b), concat(c, d))} when those inner concats exist:
 * concat-flatten's converse, toward groups the graphs made (the tokens an all_to_all returns to
 * each rank are a run of the parts of the sequential model's concat). Runs are matched left to
 * right, longest first; parts outside every run stay as they are.
 */
final class ConcatRegroup implements NativeRule<EqualsNode> {
  static final String NAME = "concat-regroup";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String doc() {
    return "a concat equals the concat of existing concats of consecutive runs of its parts";
  }

  @Override
  public void search(EGraph<TypeInfo> g, SearchDeadline deadline, Found<EqualsNode> found) {
    List<ENode> cats = new ArrayList<>();
    Map<Long, List<ENode>> byFirst = new HashMap<>();
    List<Integer> classes = new ArrayList<>();
    for (EGraph.Held held : g.nodesWithOp(Op.CONCAT.id())) {
      deadline.poll();
      int c = held.cls();
      ENode n = held.node();
      cats.add(n);
      classes.add(g.find(c));
      long key = ((long) g.find(n.child(0)) << 8) | n.attr(0);
      byFirst.computeIfAbsent(key, k -> new ArrayList<>()).add(n);
    }
    for (int i = 0; i < cats.size(); i++) {
      deadline.poll();
      ENode n = cats.get(i);
      if (n.arity() < 3) {
        continue;
      }
      int[] parts = regrouped(g, n, byFirst);
      if (parts != null) {
        found.match(new EqualsNode(classes.get(i), Op.CONCAT.id(), n.attrs(), parts));
      }
    }
  }

  @Override
  public void apply(EGraph<TypeInfo> g, EqualsNode match, Unions unions) {
    match.apply(g, unions);
  }

  /** The parts of n with runs replaced by existing concats of them; null when no run matches. */
  private static int[] regrouped(EGraph<TypeInfo> g, ENode n, Map<Long, List<ENode>> byFirst) {
    List<Integer> parts = new ArrayList<>();
    boolean grouped = false;
    int i = 0;
    while (i < n.arity()) {
      ENode best = null;
      List<ENode> candidates = byFirst.get(((long) g.find(n.child(i)) << 8) | n.attr(0));
      for (ENode q : candidates == null ? List.<ENode>of() : candidates) {
        if (q.arity() >= 2
            && q.arity() < n.arity()
            && runMatches(g, n, i, q)
            && (best == null || q.arity() > best.arity())) {
          best = q;
        }
      }
      if (best == null) {
        parts.add(g.find(n.child(i)));
        i++;
      } else {
        parts.add(g.lookup(best));
        grouped = true;
        i += best.arity();
      }
    }
    if (!grouped || parts.size() < 2 || parts.contains(-1)) {
      return null;
    }
    return parts.stream().mapToInt(Integer::intValue).toArray();
  }

  private static boolean runMatches(EGraph<TypeInfo> g, ENode n, int at, ENode q) {
    if (at + q.arity() > n.arity()) {
      return false;
    }
    for (int k = 0; k < q.arity(); k++) {
      if (g.find(n.child(at + k)) != g.find(q.child(k))) {
        return false;
      }
    }
    return true;
  }
}
