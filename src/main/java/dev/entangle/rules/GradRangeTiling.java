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
 * {@code embedding_grad[lo, hi](g, ids) = concat(embedding_grad[lo, m1](g, ids), ...,
 * embedding_grad[mk, hi](g, ids), dim=0)} when those row ranges already exist: the gradient of a
 * whole table is the concat of its shards' gradients. Like {@link SliceTiling} it only uses cut
 * points the graphs made (each vocabulary shard's range).
 */
final class GradRangeTiling implements NativeRule {
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
  public List<Consumer<IntBinaryOperator>> search(EGraph<TypeInfo> g) {
    Map<Long, List<Tiling.Piece>> byOperands = new LinkedHashMap<>();
    for (int c : g.classesWithOp(Op.EMBEDDING_GRAD.id())) {
      for (ENode n : g.nodes(c)) {
        if (n.op() == Op.EMBEDDING_GRAD.id()) {
          long key = ((long) g.find(n.child(0)) << 32) | g.find(n.child(1));
          byOperands.computeIfAbsent(key, k -> new ArrayList<>()).add(new Tiling.Piece(n.attr(0), n.attr(1), g.find(c)));
        }
      }
    }
    List<Consumer<IntBinaryOperator>> out = new ArrayList<>();
    for (List<Tiling.Piece> pieces : byOperands.values()) {
      if (pieces.size() < 3) {
        continue;
      }
      for (Tiling.Piece whole : pieces) {
        List<Tiling.Piece> chain = Tiling.cover(pieces, whole.start(), whole.end());
        if (chain != null) {
          int[] parts = chain.stream().mapToInt(Tiling.Piece::cls).toArray();
          out.add(unions -> unions.applyAsInt(whole.cls(), g.add(new ENode(Op.CONCAT.id(), new long[] {0}, parts))));
        }
      }
    }
    return out;
  }
}
