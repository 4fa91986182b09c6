package dev.entangle.refine;

import dev.entangle.core.CoreOp;
import dev.entangle.core.CoreTerm;
import dev.entangle.core.Op;
import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Finds, after an operation's check, the equalities between G_d tensors of different ranks that its
 * e-graph proved, and keeps them in {@link Context#equalities} ({@link GdEqualities}).
 */
final class EqualityLearner {
  private EqualityLearner() {}

  /**
   * What an operation's e-graph proved about G_d alone, for the checks that follow: each class of
   * its inputs and outputs ({@code roots}), or reached from them through clean nodes, that holds
   * two different G_d tensors, or slices of them, gives a group of equal terms (e.g. that two ranks
   * computed the same key head). Classes only explored are left alone: what lies ahead is learned
   * when its own operation is checked. Reads only the e-graph; {@link #keep} decides.
   */
  static List<List<CoreTerm>> candidates(Context ctx, EGraph<TypeInfo> g, List<Integer> roots) {
    g.rebuild();
    BitSet seen = new BitSet();
    ArrayList<Integer> stack = new ArrayList<>();
    roots.forEach(r -> stack.add(g.find(r)));
    List<Set<CoreTerm>> groups = new ArrayList<>();
    while (!stack.isEmpty()) {
      int c = stack.remove(stack.size() - 1);
      if (seen.get(c)) {
        continue;
      }
      seen.set(c);
      Set<CoreTerm> members = new LinkedHashSet<>();
      for (ENode n : g.nodes(c)) {
        if (n.op() == Op.TENSOR.id() && usable(ctx, (int) n.attr(0))) {
          members.add(CoreTerm.tensor((int) n.attr(0)));
        }
        int leaf = n.op() == Op.SLICE.id() ? usableLeaf(ctx, g, n.child(0)) : -1;
        if (leaf >= 0) {
          members.add(new CoreTerm(Op.SLICE.id(), n.attrs(), List.of(CoreTerm.tensor(leaf))));
        }
        if (n.op() != Op.TENSOR.id() && CleanCost.isClean(n)) {
          for (int i = 0; i < n.arity(); i++) {
            stack.add(g.find(n.child(i)));
          }
        }
      }
      groups.add(members);
    }
    List<List<CoreTerm>> out = new ArrayList<>();
    for (Set<CoreTerm> group : groups) {
      if (group.size() > 1) {
        out.add(new ArrayList<>(group));
      }
    }
    return out;
  }

  /**
   * Keeps the candidate groups of operation {@code op}'s check ({@link #candidates}) that are worth
   * keeping, given what R relates now; called when the check's outcome is taken, in G_s order.
   */
  static void keep(Context ctx, List<List<CoreTerm>> candidates, CoreOp op) {
    for (List<CoreTerm> list : candidates) {
      Set<Integer> leaves = new HashSet<>();
      list.forEach(e -> e.leaves(leaves));
      if (worthKeeping(ctx, list, leaves) && ctx.equalities.add(list)) {
        ctx.listener.learned(op, list);
      }
    }
  }

  /**
   * Whether a group tells later checks something their own e-graphs would not: it spans ranks (what
   * one rank computes, its own definitions give), and it relates a slice, or a tensor that R
   * relates to nothing yet (replicas that R relates already meet in the G_s values' classes).
   */
  private static boolean worthKeeping(Context ctx, List<CoreTerm> group, Set<Integer> leaves) {
    int rank = -1;
    boolean ranks = false;
    boolean news = false;
    for (int l : leaves) {
      int r = ctx.gd.value(l).graph();
      ranks |= rank >= 0 && r != rank;
      rank = r;
      news |= !ctx.related.get(l);
    }
    for (CoreTerm e : group) {
      news |= !e.isTensor();
    }
    return ranks && news;
  }

  /** The lowest-numbered G_d value of a class that may stand in an equality, or -1. */
  private static int usableLeaf(Context ctx, EGraph<TypeInfo> g, int c) {
    int best = -1;
    for (ENode n : g.nodes(c)) {
      if (n.op() == Op.TENSOR.id()
          && usable(ctx, (int) n.attr(0))
          && (best < 0 || n.attr(0) < best)) {
        best = (int) n.attr(0);
      }
    }
    return best;
  }

  private static boolean usable(Context ctx, int id) {
    return !ctx.gd.constant[id] && !ctx.gd.undefined[id];
  }
}
