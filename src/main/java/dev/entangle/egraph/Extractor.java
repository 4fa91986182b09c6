package dev.entangle.egraph;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Picks, for every class of a clean e-graph, its cheapest term under a {@link CostModel}: a term
 * costs its node's cost plus its children's best costs. Computed once, at construction, by
 * iterating to a fixed point, which handles cycles (a class reachable from itself).
 *
 * <p>Ties are broken deterministically: lower cost, then fewer nodes, then the smaller node
 * (operator id, then attributes, then child class ids). Because a class's chosen node always has
 * children with strictly smaller (cost, size), extracted terms are finite.
 *
 * <p>An extractor is a snapshot of the e-graph at construction; build a new one after changing it.
 */
public final class Extractor {
  private static final long NONE = Long.MAX_VALUE;

  private final EGraph<?> g;
  private final long[] cost;
  private final long[] size;
  private final ENode[] best;
  private final Term[] terms;
  private final long version;

  /**
   * @throws IllegalStateException when the e-graph is not clean (call {@link EGraph#rebuild})
   */
  public Extractor(EGraph<?> g, CostModel model) {
    if (!g.isClean()) {
      throw new IllegalStateException(
          "the e-graph has pending unions: call rebuild() before extracting");
    }
    this.g = g;
    this.version = g.version();
    int ids = g.idCount();
    cost = new long[ids];
    size = new long[ids];
    best = new ENode[ids];
    terms = new Term[ids];
    Arrays.fill(cost, NONE);
    Arrays.fill(size, NONE);
    int[] classes = g.classIds();
    long[][] nodeCosts = new long[ids][];
    for (int c : classes) {
      List<ENode> nodes = g.classNodes(c);
      long[] nc = new long[nodes.size()];
      for (int j = 0; j < nc.length; j++) {
        long k = model.nodeCost(nodes.get(j));
        nc[j] = CostModel.allowed(k) ? k : NONE;
      }
      nodeCosts[c] = nc;
    }
    fixpoint(classes, nodeCosts);
    choose(classes, nodeCosts);
  }

  /** The cost of the best term of {@code classId}'s class, or {@link Long#MAX_VALUE} when none. */
  public long cost(int classId) {
    return cost[root(classId)];
  }

  /** The best node of {@code classId}'s class, or null when the class has no allowed term. */
  public ENode bestNode(int classId) {
    return best[root(classId)];
  }

  /** The best term of {@code classId}'s class, or null when the class has no allowed term. */
  public Term extract(int classId) {
    int root = root(classId);
    if (best[root] == null) {
      return null;
    }
    // iterative post-order: terms can be deeper than the thread stack allows
    IntList stack = new IntList();
    stack.add(root);
    while (!stack.isEmpty()) {
      int c = stack.last();
      if (terms[c] != null) {
        stack.removeLast();
        continue;
      }
      ENode n = best[c];
      boolean ready = true;
      for (int ch : n.children) {
        if (terms[ch] == null) {
          stack.add(ch);
          ready = false;
        }
      }
      if (ready) {
        List<Term> kids = new ArrayList<>(n.children.length);
        for (int ch : n.children) {
          kids.add(terms[ch]);
        }
        terms[c] = new Term(n, kids);
        stack.removeLast();
      }
    }
    return terms[root];
  }

  private int root(int classId) {
    if (g.version() != version) {
      throw new IllegalStateException("the e-graph changed since this extractor was built");
    }
    return g.find(classId);
  }

  /** Lowers (cost, size) per class until nothing improves; each step strictly decreases a pair. */
  private void fixpoint(int[] classes, long[][] nodeCosts) {
    boolean changed = true;
    while (changed) {
      changed = false;
      for (int c : classes) {
        List<ENode> nodes = g.classNodes(c);
        long[] nc = nodeCosts[c];
        for (int j = 0; j < nc.length; j++) {
          long total = nc[j];
          long sz = 1;
          int[] ch = nodes.get(j).children;
          for (int k = 0; k < ch.length && total != NONE; k++) {
            total = cost[ch[k]] == NONE ? NONE : add(total, cost[ch[k]]);
            sz = add(sz, size[ch[k]]);
          }
          if (total == NONE || sz == NONE) {
            continue;
          }
          if (total < cost[c] || (total == cost[c] && sz < size[c])) {
            cost[c] = total;
            size[c] = sz;
            changed = true;
          }
        }
      }
    }
  }

  /** Per class, the smallest node among those reaching the class's final (cost, size). */
  private void choose(int[] classes, long[][] nodeCosts) {
    for (int c : classes) {
      if (cost[c] == NONE) {
        continue;
      }
      List<ENode> nodes = g.classNodes(c);
      long[] nc = nodeCosts[c];
      for (int j = 0; j < nc.length; j++) {
        ENode n = nodes.get(j);
        long total = nc[j];
        long sz = 1;
        for (int k = 0; k < n.children.length && total != NONE; k++) {
          int ch = n.children[k];
          total = cost[ch] == NONE ? NONE : add(total, cost[ch]);
          sz = add(sz, size[ch]);
        }
        if (total == cost[c]
            && sz == size[c]
            && (best[c] == null || ENode.compare(n, best[c]) < 0)) {
          best[c] = n;
        }
      }
    }
  }

  /** Saturating addition of non-negative longs; {@link #NONE} absorbs. */
  private static long add(long a, long b) {
    long s = a + b;
    return s < 0 || a == NONE || b == NONE ? NONE : s;
  }
}
