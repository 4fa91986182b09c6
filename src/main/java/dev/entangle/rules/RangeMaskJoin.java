package dev.entangle.rules;

import dev.entangle.core.Op;
import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.Applier.Unions;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code min(..., out_of_range[a, b](t), out_of_range[b, c](t), ...) = min(..., out_of_range[a,
 * c](t), ...)}: an id is outside both of two abutting ranges exactly when it is outside their
 * union. A decision procedure rather than a rewrite of one pair: every run of abutting masks of one
 * tensor among a {@code minn}'s operands is joined at once, into the canonical form whose ranges
 * are maximal. Joining one pair at a time built every way of grouping the runs, 2^(n-1) terms for
 * the n vocabulary shards of n ranks (at 16 ranks, 32,768 {@code minn} nodes in one class); the
 * canonical form is one node at any number of ranks.
 */
final class RangeMaskJoin implements NativeRule<RangeMaskJoin.Join> {
  static final String NAME = "range-mask-join";

  /**
   * A {@code minn} class and its operands after the join: each part is an existing class ({@code
   * range == null}) or a mask {@code out_of_range[range[0], range[1]](tensor)} to build.
   */
  record Join(int cls, List<Part> parts) {}

  /** One operand of the joined {@code minn}. */
  record Part(int cls, long[] range, int tensor) {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String doc() {
    return "abutting range masks of one tensor in a min join into the mask of their union";
  }

  @Override
  public void search(EGraph<TypeInfo> g, SearchDeadline deadline, Found<Join> found) {
    for (EGraph.Held held : g.nodesWithOp(Op.MINN.id())) {
      deadline.poll();
      List<Part> parts = joined(g, held.node());
      if (parts != null) {
        found.match(new Join(g.find(held.cls()), parts));
      }
    }
  }

  /** The operands with every run of abutting masks joined, or null when no two masks join. */
  private static List<Part> joined(EGraph<TypeInfo> g, ENode minn) {
    List<Part> parts = new ArrayList<>();
    boolean joinedAny = false;
    Part run = null;
    for (int i = 0; i < minn.arity(); i++) {
      int child = g.find(minn.child(i));
      ENode mask = maskIn(g, child);
      if (mask != null
          && run != null
          && run.range() != null
          && run.tensor() == g.find(mask.child(0))
          && run.range()[1] == mask.attr(0)) {
        run = new Part(-1, new long[] {run.range()[0], mask.attr(1)}, run.tensor());
        parts.set(parts.size() - 1, run);
        joinedAny = true;
        continue;
      }
      run =
          mask == null
              ? new Part(child, null, -1)
              : new Part(child, new long[] {mask.attr(0), mask.attr(1)}, g.find(mask.child(0)));
      parts.add(run);
    }
    return joinedAny ? parts : null;
  }

  /** The first mask {@code out_of_range[lo, hi]} with {@code lo <= hi} in a class, or null. */
  private static ENode maskIn(EGraph<TypeInfo> g, int cls) {
    for (ENode n : g.nodes(cls)) {
      if (n.op() == Op.OUT_OF_RANGE.id() && n.attr(0) <= n.attr(1)) {
        return n;
      }
    }
    return null;
  }

  @Override
  public void apply(EGraph<TypeInfo> g, Join match, Unions unions) {
    int[] operands = new int[match.parts().size()];
    for (int i = 0; i < operands.length; i++) {
      Part p = match.parts().get(i);
      operands[i] =
          p.cls() >= 0
              ? p.cls()
              : g.add(new ENode(Op.OUT_OF_RANGE.id(), p.range().clone(), new int[] {p.tensor()}));
    }
    int joined =
        operands.length == 1 ? operands[0] : g.add(new ENode(Op.MINN.id(), new long[0], operands));
    unions.union(match.cls(), joined);
  }
}
