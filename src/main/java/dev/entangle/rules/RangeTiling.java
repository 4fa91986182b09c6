package dev.entangle.rules;

import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;
import dev.entangle.ops.Op;
import dev.entangle.ops.TypeInfo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.IntBinaryOperator;

/**
 * {@code out_of_range[lo, hi](x) = min(out_of_range[lo, m1](x), ..., out_of_range[mk, hi](x))}
 * when those masks already exist: an id is outside the whole range exactly when it is outside
 * every part (for booleans, min is "and"). Relates a full-vocabulary mask to the masks of the
 * vocabulary shards; like {@link SliceTiling} it only uses cut points the graphs made.
 */
final class RangeTiling implements NativeRule {
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
  public List<Consumer<IntBinaryOperator>> search(EGraph<TypeInfo> g) {
    Map<Integer, List<Tiling.Piece>> byInput = new LinkedHashMap<>();
    Map<Integer, List<long[]>> wholes = new LinkedHashMap<>();
    for (int c : g.classesWithOp(Op.OUT_OF_RANGE.id())) {
      for (ENode n : g.nodes(c)) {
        if (n.op() == Op.OUT_OF_RANGE.id()) {
          int x = g.find(n.child(0));
          byInput.computeIfAbsent(x, k -> new ArrayList<>()).add(new Tiling.Piece(n.attr(0), n.attr(1), g.find(c)));
          wholes.computeIfAbsent(x, k -> new ArrayList<>()).add(new long[] {n.attr(0), n.attr(1), g.find(c)});
        }
      }
    }
    List<Consumer<IntBinaryOperator>> out = new ArrayList<>();
    for (var e : byInput.entrySet()) {
      if (e.getValue().size() < 3) {
        continue;
      }
      for (long[] whole : wholes.get(e.getKey())) {
        List<Tiling.Piece> chain = Tiling.cover(e.getValue(), whole[0], whole[1]);
        if (chain != null) {
          int[] parts = chain.stream().mapToInt(Tiling.Piece::cls).toArray();
          int target = (int) whole[2];
          out.add(unions -> unions.applyAsInt(target, g.add(new ENode(Op.MINN.id(), new long[0], parts))));
        }
      }
    }
    return out;
  }
}
