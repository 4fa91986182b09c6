package dev.entangle.refine;

import dev.entangle.core.CoreTerm;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * How an operator's check reads what earlier checks left in the {@link Context}: R, the deferred
 * values, the related G_d values and the learned equalities. {@link #direct} reads them; {@link
 * #recording} also remembers every answer, so that a check run ahead of its turn ({@link
 * Speculation}) can tell, when its turn comes, whether it saw what a check run then would see.
 */
class StateReads {
  final Context ctx;

  private StateReads(Context ctx) {
    this.ctx = ctx;
  }

  /** Reads the state as it is. */
  static StateReads direct(Context ctx) {
    return new StateReads(ctx);
  }

  /** Reads the state as it is and remembers each answer. */
  static Recording recording(Context ctx) {
    return new Recording(ctx);
  }

  /** R(v), or null. */
  List<CoreTerm> relation(int v) {
    return ctx.relation.get(v);
  }

  boolean deferred(int v) {
    return ctx.deferred.contains(v);
  }

  /** Whether R relates G_d value {@code d} to some G_s value. */
  boolean related(int d) {
    return ctx.related.get(d);
  }

  /** The learned equality groups that read G_d value {@code leaf}. */
  List<Integer> touching(int leaf) {
    return ctx.equalities.touching(leaf);
  }

  /** Yes-or-no answers by key, in the order they were read. */
  private static final class Answers {
    private final List<Integer> keys = new ArrayList<>();
    private final BitSet seen = new BitSet();

    boolean remember(int key, boolean answer) {
      seen.set(keys.size(), answer);
      keys.add(key);
      return answer;
    }

    /** Whether {@code now} gives every key the answer it had. */
    boolean same(IntPredicate now) {
      for (int i = 0; i < keys.size(); i++) {
        if (now.test(keys.get(i)) != seen.get(i)) {
          return false;
        }
      }
      return true;
    }
  }

  /** Reads that remember their answers; {@link #stillTrue} checks them against the state now. */
  static final class Recording extends StateReads {
    private final List<Integer> relationKeys = new ArrayList<>();
    private final List<List<CoreTerm>> relationSeen = new ArrayList<>();
    private final Answers deferred = new Answers();
    private final Answers related = new Answers();
    private final List<Integer> touchingKeys = new ArrayList<>();
    private final List<Integer> touchingSeen = new ArrayList<>();

    private Recording(Context ctx) {
      super(ctx);
    }

    @Override
    List<CoreTerm> relation(int v) {
      List<CoreTerm> r = super.relation(v);
      relationKeys.add(v);
      relationSeen.add(r);
      return r;
    }

    @Override
    boolean deferred(int v) {
      return deferred.remember(v, super.deferred(v));
    }

    @Override
    boolean related(int d) {
      return related.remember(d, super.related(d));
    }

    @Override
    List<Integer> touching(int leaf) {
      List<Integer> t = super.touching(leaf);
      touchingKeys.add(leaf);
      touchingSeen.add(t.size());
      return t;
    }

    /**
     * Whether every read would answer the same now: R's entries are the same lists, and groups are
     * only ever added, so an equal count means the same groups.
     */
    boolean stillTrue() {
      for (int i = 0; i < relationKeys.size(); i++) {
        if (ctx.relation.get(relationKeys.get(i)) != relationSeen.get(i)) {
          return false;
        }
      }
      if (!deferred.same(ctx.deferred::contains) || !related.same(ctx.related::get)) {
        return false;
      }
      for (int i = 0; i < touchingKeys.size(); i++) {
        if (ctx.equalities.touching(touchingKeys.get(i)).size() != touchingSeen.get(i)) {
          return false;
        }
      }
      return true;
    }
  }
}
