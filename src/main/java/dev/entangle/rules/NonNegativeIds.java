package dev.entangle.rules;

import dev.entangle.core.Dtype;
import dev.entangle.core.Op;
import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;

/**
 * Shows that an integer e-class holds no negative element, from how it is built: a known number at
 * least 0, a bool or unsigned integer, positions ({@code arange} from 0 or more, upward), an {@code
 * argmax}, a layout of such ids, a sum, product or minimum of such ids, a maximum with such ids (a
 * clamp from 0), a {@code where} choosing between such ids, and a vocabulary shard's shifted ids
 * ({@code where(out_of_range[lo hi](t), k, t - lo)} with k at least 0: inside the range, {@code t -
 * lo} is at least 0; the mask may also be the {@code (t < lo) | (t >= hi)} it is recognized from,
 * or the "and" of the shards' masks that tiles a whole range).
 *
 * <p>It lets a law that holds only for ids in range be stated for indexing that wraps negative ids
 * (advanced indexing reads {@code x[-1]} as the last entry, a pick does not), so it must never
 * answer yes wrongly: it looks a few levels deep and says no when unsure.
 */
final class NonNegativeIds {
  private static final int DEPTH = 4;

  private NonNegativeIds() {}

  /**
   * How many child steps below the class it is asked about {@link #holds} reads at most: {@link
   * #DEPTH} levels of ids, a {@code where}'s shifted branch and its constant, and {@link #DEPTH}
   * levels of its mask with a comparison's constant.
   */
  static final int READS_BELOW = 2 * DEPTH + 3;

  static boolean holds(EGraph<TypeInfo> g, int cls) {
    return holds(g, cls, DEPTH);
  }

  private static boolean holds(EGraph<TypeInfo> g, int cls, int depth) {
    TypeInfo t = g.data(cls);
    if (t.isTuple()) {
      return false;
    }
    Dtype dt = Dtype.of(t.dtype());
    boolean unsigned =
        dt == Dtype.BOOL
            || dt == Dtype.UINT8
            || dt == Dtype.UINT16
            || dt == Dtype.UINT32
            || dt == Dtype.UINT64;
    if (unsigned || (t.constant() != null && t.constant() >= 0)) {
      return true;
    }
    if (depth == 0 || !dt.isIntegral()) {
      return false;
    }
    for (ENode n : g.nodes(cls)) {
      if (node(g, n, depth - 1)) {
        return true;
      }
    }
    return false;
  }

  private static boolean node(EGraph<TypeInfo> g, ENode n, int depth) {
    Op op = Op.of(n.op());
    return switch (op) {
      case ARANGE -> n.attr(0) >= 0 && n.attr(2) > 0;
      case ARGMAX -> true;
      case RESHAPE, EXPAND, PERMUTE, SLICE, CONCAT, ADD, MUL, MINIMUM -> all(g, n, 0, depth);
      case MAXIMUM -> holds(g, n.child(0), depth) || holds(g, n.child(1), depth);
      case WHERE -> all(g, n, 1, depth) || (holds(g, n.child(1), depth) && shiftedInRange(g, n));
      default -> false;
    };
  }

  private static boolean all(EGraph<TypeInfo> g, ENode n, int from, int depth) {
    for (int i = from; i < n.arity(); i++) {
      if (!holds(g, n.child(i), depth)) {
        return false;
      }
    }
    return true;
  }

  /**
   * {@code where(mask, _, t - c)} where the mask holds wherever {@code t < c} (so in the else
   * branch t is at least c): the mask is t's {@code out_of_range[lo hi]} or {@code t < lo} with c
   * at most lo, or an "or" (maximum) of such masks, or an "and" (minimum) of masks of t that all
   * are.
   */
  private static boolean shiftedInRange(EGraph<TypeInfo> g, ENode where) {
    for (ENode shifted : g.nodes(where.child(2))) {
      if (Op.of(shifted.op()) == Op.SUB) {
        Double c = g.data(shifted.child(1)).constant();
        int t = g.find(shifted.child(0));
        if (c != null && c <= below(g, where.child(0), t, DEPTH)) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * The largest L found such that the bool class is true wherever the ids t are below L; negative
   * infinity when none is.
   */
  private static double below(EGraph<TypeInfo> g, int mask, int t, int depth) {
    double best = Double.NEGATIVE_INFINITY;
    for (ENode n : g.nodes(mask)) {
      Op op = Op.of(n.op());
      double bound = Double.NEGATIVE_INFINITY;
      if (op == Op.OUT_OF_RANGE && g.find(n.child(0)) == t) {
        bound = n.attr(0);
      } else if (op == Op.LT && g.find(n.child(0)) == t) {
        Double c = g.data(n.child(1)).constant();
        bound = c != null ? c : bound;
      } else if (depth > 0 && (op == Op.OR || op == Op.MAXN)) {
        for (int i = 0; i < n.arity(); i++) {
          bound = Math.max(bound, below(g, n.child(i), t, depth - 1));
        }
      } else if (depth > 0 && (op == Op.AND || op == Op.MINN)) {
        bound = Double.POSITIVE_INFINITY;
        for (int i = 0; i < n.arity(); i++) {
          bound = Math.min(bound, below(g, n.child(i), t, depth - 1));
        }
      }
      best = Math.max(best, bound);
    }
    return best;
  }
}
