package dev.entangle.refine;

import dev.entangle.core.CoreTerm;
import dev.entangle.core.Dtype;
import dev.entangle.core.Op;
import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;
import dev.entangle.egraph.Extractor;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The clean expressions R keeps for a G_s value: several, not just the cheapest, since later
 * operators explore G_d from every G_d tensor they mention (a reduce-scatter's inputs, say, appear
 * only in {@code sum(...)}, not in the equally cheap leaf of the all-reduce).
 */
final class CleanAlternatives {
  private CleanAlternatives() {}

  /**
   * The clean expressions to keep for a class: every G_d value in it, then up to {@code k} more,
   * the cheapest term rooted at each other clean node, cheapest first.
   */
  static List<CoreTerm> of(EGraph<?> g, Extractor ex, int c, int k) {
    if (ex.bestNode(c) == null) {
      return List.of();
    }
    List<long[]> ranked = new ArrayList<>();
    List<ENode> candidates = new ArrayList<>();
    List<CoreTerm> out = new ArrayList<>();
    int root = g.find(c);
    for (ENode n : g.nodes(c)) {
      if (!CleanCost.isClean(n) || refersTo(g, n, root)) {
        continue;
      }
      if (n.op() == Op.TENSOR.id()) {
        out.add(CoreTerm.tensor((int) n.attr(0)));
        continue;
      }
      long cost = 1;
      boolean ok = true;
      for (int i = 0; i < n.arity(); i++) {
        if (ex.bestNode(n.child(i)) == null) {
          ok = false;
          break;
        }
        cost += ex.cost(n.child(i));
      }
      if (ok) {
        ranked.add(new long[] {cost, candidates.size()});
        candidates.add(n);
      }
    }
    // cheapest first, then in node order; terms are built only for what is kept
    ranked.sort((x, y) -> x[0] != y[0] ? Long.compare(x[0], y[0]) : Long.compare(x[1], y[1]));
    int limit = k + out.size();
    Set<CoreTerm> seen = new HashSet<>();
    for (long[] r : ranked) {
      if (out.size() >= limit) {
        break;
      }
      ENode n = candidates.get((int) r[1]);
      List<CoreTerm> kids = new ArrayList<>(n.arity());
      for (int i = 0; i < n.arity(); i++) {
        kids.add(CoreTerm.of(ex.extract(n.child(i))));
      }
      CoreTerm e = new CoreTerm(n.op(), n.attrs(), kids);
      if (seen.add(e)) {
        out.add(e);
      }
    }
    if (!out.isEmpty()
        && g.data(root) instanceof TypeInfo t
        && !t.isTuple()
        && !Dtype.isFloating(t.dtype())) {
      replicas(g, out, seen);
    }
    return out;
  }

  /**
   * Ids (an integer class) kept once per replica: the first expression again with each of its G_d
   * tensors replaced by every other G_d tensor the e-graph holds equal to it (each rank's copy of
   * replicated ids). Each rank looks up its own shard with its own copy, so the checks that follow
   * explore every rank's lookup from one of them, not only the cheapest rank's.
   */
  private static void replicas(EGraph<?> g, List<CoreTerm> out, Set<CoreTerm> seen) {
    CoreTerm first = out.get(0);
    Set<Integer> leaves = new LinkedHashSet<>();
    first.leaves(leaves);
    for (int leaf : leaves) {
      int cls = g.lookup(ENode.leaf(Op.TENSOR.id(), leaf));
      if (cls < 0) {
        continue;
      }
      for (ENode n : g.nodes(cls)) {
        if (n.op() == Op.TENSOR.id() && n.attr(0) != leaf) {
          CoreTerm e = first.withLeaf(leaf, (int) n.attr(0));
          if (seen.add(e)) {
            out.add(e);
          }
        }
      }
    }
  }

  /** Whether a node has its own class among its children (e.g. a concat of one part). */
  private static boolean refersTo(EGraph<?> g, ENode n, int cls) {
    for (int i = 0; i < n.arity(); i++) {
      if (g.find(n.child(i)) == cls) {
        return true;
      }
    }
    return false;
  }
}
