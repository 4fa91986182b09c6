package dev.entangle.rules;

import dev.entangle.core.Op;
import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.Applier.Unions;
import dev.entangle.egraph.EGraph;

/**
 * {@code out_of_range[lo, hi](x) = min(out_of_range[lo, m1](x), ..., out_of_range[mk, hi](x))} when
 * those masks already exist: an id is outside the whole range exactly when it is outside every part
 * (for booleans, min is "and"). Relates a full-vocabulary mask to the masks of the vocabulary
 * shards; like {@link SliceTiling} it only uses cut points the graphs made.
 */
final class RangeTiling implements NativeRule<EqualsNode> {
  static final String NAME = "range-tiling";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String doc() {
    return "a range mask equals the element-wise min of existing masks of ranges that tile it";
  }

  @Override
  public void search(EGraph<TypeInfo> g, SearchDeadline deadline, Found<EqualsNode> found) {
    Tiling.ranges(
        g,
        Op.OUT_OF_RANGE.id(),
        n -> g.find(n.child(0)),
        Op.MINN.id(),
        new long[0],
        deadline,
        found);
  }

  @Override
  public void apply(EGraph<TypeInfo> g, EqualsNode match, Unions unions) {
    match.apply(g, unions);
  }
}
