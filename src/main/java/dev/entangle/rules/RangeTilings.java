package dev.entangle.rules;

import dev.entangle.core.Op;
import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.Applier.Unions;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * Operators over a range {@code [lo, hi)} (their first two attributes) whose whole range is the
 * combination of existing parts that tile it ({@link Tiling#ranges}); like {@link SliceTiling} each
 * only uses cut points the graphs made (each vocabulary shard's range):
 *
 * <ul>
 *   <li>{@code arange-tiling}: {@code arange(a, b) = concat(arange(a, m1), ..., arange(mk, b))}
 *       (step 1, one dtype): the classes {@code 0 .. V} of a sequential program are those of the
 *       vocabulary shards a per-device one-hot compares with;
 *   <li>{@code range-tiling}: {@code out_of_range[lo, hi](x) = min(out_of_range[lo, m1](x), ...,
 *       out_of_range[mk, hi](x))}: an id is outside the whole range exactly when it is outside
 *       every part (for booleans, min is "and");
 *   <li>{@code embedding-grad-tiling}: {@code embedding_grad[lo, hi](g, ids) =
 *       concat(embedding_grad[lo, m1](g, ids), ..., dim=0)}: the gradient of a whole table is the
 *       concat of its shards' gradients.
 * </ul>
 *
 * @param name the lemma's name in lemma files
 * @param doc what it states, for the lemma listing
 * @param op the operator over a range
 * @param operands per e-graph, which nodes may tile one another (equal keys)
 * @param combine the operator that joins the parts
 * @param combineAttrs its attributes
 */
record RangeTilings(
    String name,
    String doc,
    Op op,
    Function<EGraph<TypeInfo>, ToLongFunction<ENode>> operands,
    Op combine,
    long[] combineAttrs)
    implements NativeRule<EqualsNode> {
  static final String ARANGE = "arange-tiling";
  static final String MASK = "range-tiling";
  static final String GRAD = "embedding-grad-tiling";

  /** Aranges of step 1 and one dtype; one of another step is a group of its own. */
  static RangeTilings aranges() {
    return new RangeTilings(
        ARANGE,
        "an arange of step 1 equals the concat of existing aranges of one dtype that tile it",
        Op.ARANGE,
        g -> {
          long[] alone = {Long.MIN_VALUE};
          return n -> n.attr(2) == 1 ? n.attr(3) : alone[0]++;
        },
        Op.CONCAT,
        new long[] {0});
  }

  /** Range masks of one tensor of ids. */
  static RangeTilings masks() {
    return new RangeTilings(
        MASK,
        "a range mask equals the element-wise min of existing masks of ranges that tile it",
        Op.OUT_OF_RANGE,
        g -> n -> g.find(n.child(0)),
        Op.MINN,
        new long[0]);
  }

  /** Table gradients of one upstream gradient and one tensor of ids. */
  static RangeTilings gradients() {
    return new RangeTilings(
        GRAD,
        "a table gradient is the concat of existing gradients of row ranges that tile it",
        Op.EMBEDDING_GRAD,
        g -> n -> ((long) g.find(n.child(0)) << 32) | g.find(n.child(1)),
        Op.CONCAT,
        new long[] {0});
  }

  @Override
  public void search(EGraph<TypeInfo> g, SearchDeadline deadline, Found<EqualsNode> found) {
    Tiling.ranges(g, op.id(), operands.apply(g), combine.id(), combineAttrs, deadline, found);
  }

  @Override
  public void apply(EGraph<TypeInfo> g, EqualsNode match, Unions unions) {
    match.apply(g, unions);
  }
}
