package dev.entangle.rules;

import dev.entangle.core.Op;
import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.Applier.Unions;
import dev.entangle.egraph.EGraph;

/**
 * {@code arange(a, b) = concat(arange(a, m1), arange(m1, m2), ..., arange(mk, b))} (step 1, one
 * dtype) when those aranges already exist: the positions or classes of the whole are those of its
 * consecutive parts. Relates a sequential program's classes {@code 0 .. V} to the classes of the
 * vocabulary shards a per-device one-hot compares with; like {@link SliceTiling} it only uses cut
 * points the graphs made.
 */
final class ArangeTiling implements NativeRule<EqualsNode> {
  static final String NAME = "arange-tiling";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String doc() {
    return "an arange of step 1 equals the concat of existing aranges of one dtype that tile it";
  }

  @Override
  public void search(EGraph<TypeInfo> g, SearchDeadline deadline, Found<EqualsNode> found) {
    long[] alone = {Long.MIN_VALUE}; // an arange of another step than 1 is a group of its own
    Tiling.ranges(
        g,
        Op.ARANGE.id(),
        n -> n.attr(2) == 1 ? n.attr(3) : alone[0]++,
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
