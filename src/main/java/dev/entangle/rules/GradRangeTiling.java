package dev.entangle.rules;

import dev.entangle.core.Op;
import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.Applier.Unions;
import dev.entangle.egraph.EGraph;

/**
 * {@code embedding_grad[lo, hi](g, ids) = concat(embedding_grad[lo, m1](g, ids), ...,
 * embedding_grad[mk, hi](g, ids), dim=0)} when those row ranges already exist: the gradient of a
 * whole table is the concat of its shards' gradients. Like {@link SliceTiling} it only uses cut
 * points the graphs made (each vocabulary shard's range).
 */
final class GradRangeTiling implements NativeRule<EqualsNode> {
  static final String NAME = "embedding-grad-tiling";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String doc() {
    return "a table gradient is the concat of existing gradients of row ranges that tile it";
  }

  @Override
  public void search(EGraph<TypeInfo> g, SearchDeadline deadline, Found<EqualsNode> found) {
    Tiling.ranges(
        g,
        Op.EMBEDDING_GRAD.id(),
        n -> ((long) g.find(n.child(0)) << 32) | g.find(n.child(1)),
        Op.CONCAT.id(),
        new long[] {0},
        deadline,
        found);
  }

  @Override
  public void apply(EGraph<TypeInfo> g, EqualsNode match, Unions unions) {
    match.apply(g, unions);
  }
}
