package dev.entangle.rules;

import dev.entangle.core.Op;
import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.Applier.Unions;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;
import java.util.Arrays;
import java.util.List;

/**
 * A rank's share of a log-softmax whose classes are split across ranks (torch's {@code
 * loss_parallel}): {@code x_k - M - log(L)}, with {@code M = maxn(ramax(x_0), ..., ramax(x_n))} the
 * all-reduced row max and {@code L = sumn(rsum(exp(x_0 - M)), ..., rsum(exp(x_n - M)))} the
 * all-reduced sum of the shifted exponentials (reductions kept as size-1 dims along d), is the
 * slice of {@code log_softmax[d](concat[d](x_0, ..., x_n))} where {@code x_k} lies.
 *
 * <p>Stated toward the shards a program computes: it fires only where the whole pattern is there
 * (each rank's max and sum of every part), so a log-softmax that no rank computes in parts (a
 * cross-entropy that picks the target logits first) is left as it is.
 */
final class LogSoftmaxShards implements NativeRule<LogSoftmaxShards.Share> {
  static final String NAME = "log-softmax-shards";

  /** A rank's share: its class, the parts in order, which part it is, and the dim. */
  record Share(int cls, int[] parts, int part, int dim) {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String doc() {
    return "x_k - maxn(ramax(x_i)) - log(sumn(rsum(exp(x_i - max)))) is x_k's slice of the"
        + " log-softmax of the concat of the x_i";
  }

  @Override
  public void search(EGraph<TypeInfo> g, SearchDeadline deadline, Found<Share> found) {
    for (EGraph.Held held : g.nodesWithOp(Op.SUB.id())) {
      deadline.poll();
      Share s = share(g, g.find(held.cls()), held.node());
      if (s != null) {
        found.match(s);
      }
    }
  }

  /** The share {@code sub(sub(x_k, expand(M)), expand(log(L)))} is, or null. */
  private static Share share(EGraph<TypeInfo> g, int cls, ENode outer) {
    ENode expanded = child(g, outer.child(1), Op.EXPAND);
    ENode logOf = expanded == null ? null : child(g, expanded.child(0), Op.LOG);
    if (logOf == null) {
      return null;
    }
    for (ENode shifted : each(g, outer.child(0), Op.SUB)) {
      ENode max = child(g, shifted.child(1), Op.EXPAND);
      if (max == null) {
        continue;
      }
      int m = g.find(max.child(0));
      Parts found = maxParts(g, m);
      if (found == null) {
        continue;
      }
      int[] parts = found.parts();
      int dim = found.dim();
      int k = indexOf(parts, g.find(shifted.child(0)));
      if (k >= 0
          && concatenable(g, parts, dim)
          && Arrays.equals(g.data(cls).shape(), g.data(parts[k]).shape())
          && sumsAlike(g, logOf.child(0), parts, m, dim)) {
        return new Share(cls, parts, k, dim);
      }
    }
    return null;
  }

  /** Whether the parts have one rank and dtype and agree on every dim but {@code dim}. */
  private static boolean concatenable(EGraph<TypeInfo> g, int[] parts, int dim) {
    TypeInfo first = g.data(parts[0]);
    for (int p : parts) {
      TypeInfo t = g.data(p);
      if (t.isTuple()
          || t.dtype() != first.dtype()
          || t.shape().length != first.shape().length
          || dim < 0
          || dim >= t.shape().length) {
        return false;
      }
      for (int i = 0; i < t.shape().length; i++) {
        if (i != dim && t.shape()[i] != first.shape()[i]) {
          return false;
        }
      }
    }
    return true;
  }

  /** The parts of a row max across ranks and the dim each part's max is taken along. */
  private record Parts(int[] parts, int dim) {}

  /**
   * The parts x_i of a class holding {@code maxn(ramax[1 d](x_0), ...)}, every max along the same
   * dim d, or null.
   */
  private static Parts maxParts(EGraph<TypeInfo> g, int m) {
    for (ENode maxn : each(g, m, Op.MAXN)) {
      int[] parts = new int[maxn.arity()];
      long dim = -1;
      for (int i = 0; i < parts.length; i++) {
        ENode r = keptReduction(g, maxn.child(i), Op.RAMAX);
        if (r == null || (dim >= 0 && r.attr(1) != dim)) {
          parts = null;
          break;
        }
        dim = r.attr(1);
        parts[i] = g.find(r.child(0));
      }
      if (parts != null && parts.length >= 2) {
        return new Parts(parts, (int) dim);
      }
    }
    return null;
  }

  /**
   * Whether class {@code l} holds {@code sumn(rsum[1 d](exp(sub(x_i, expand(M)))), ...)} over the
   * same parts, each once.
   */
  private static boolean sumsAlike(EGraph<TypeInfo> g, int l, int[] parts, int m, int dim) {
    for (ENode sumn : each(g, l, Op.SUMN)) {
      if (sumn.arity() != parts.length) {
        continue;
      }
      boolean[] seen = new boolean[parts.length];
      boolean all = true;
      for (int i = 0; i < sumn.arity() && all; i++) {
        ENode r = keptReduction(g, sumn.child(i), Op.RSUM);
        ENode e = r == null || r.attr(1) != dim ? null : child(g, r.child(0), Op.EXP);
        int k = e == null ? -1 : shiftedPart(g, e.child(0), parts, m);
        all = k >= 0 && !seen[k];
        if (all) {
          seen[k] = true;
        }
      }
      if (all) {
        return true;
      }
    }
    return false;
  }

  /** Which part {@code sub(x_k, expand(M))} in class {@code d} shifts, or -1. */
  private static int shiftedPart(EGraph<TypeInfo> g, int d, int[] parts, int m) {
    for (ENode sub : each(g, d, Op.SUB)) {
      ENode e = child(g, sub.child(1), Op.EXPAND);
      if (e != null && g.find(e.child(0)) == m) {
        int k = indexOf(parts, g.find(sub.child(0)));
        if (k >= 0) {
          return k;
        }
      }
    }
    return -1;
  }

  /** A node {@code op[1, d](x)} (kept dims, one dim) in the class, or null. */
  private static ENode keptReduction(EGraph<TypeInfo> g, int cls, Op op) {
    for (ENode n : each(g, cls, op)) {
      if (n.arity() == 1 && n.attrs().length == 2 && n.attr(0) == 1) {
        return n;
      }
    }
    return null;
  }

  /** The first node with operator {@code op} in the class, or null. */
  private static ENode child(EGraph<TypeInfo> g, int cls, Op op) {
    return g.nodes(cls, op.id()).first();
  }

  /** The nodes with operator {@code op} in the class. */
  private static List<ENode> each(EGraph<TypeInfo> g, int cls, Op op) {
    return g.nodes(cls, op.id()).list();
  }

  private static int indexOf(int[] parts, int cls) {
    for (int i = 0; i < parts.length; i++) {
      if (parts[i] == cls) {
        return i;
      }
    }
    return -1;
  }

  @Override
  public void apply(EGraph<TypeInfo> g, Share s, Unions unions) {
    long offset = 0;
    for (int i = 0; i < s.part(); i++) {
      offset += g.data(s.parts()[i]).shape()[s.dim()];
    }
    long size = g.data(s.parts()[s.part()]).shape()[s.dim()];
    int whole = g.add(new ENode(Op.CONCAT.id(), new long[] {s.dim()}, s.parts().clone()));
    int logSoftmax = g.add(new ENode(Op.LOG_SOFTMAX.id(), new long[] {s.dim()}, new int[] {whole}));
    int slice =
        g.add(
            new ENode(
                Op.SLICE.id(),
                new long[] {s.dim(), offset, offset + size, 1},
                new int[] {logSoftmax}));
    unions.union(s.cls(), slice);
  }
}
