package dev.entangle.rules;

import dev.entangle.egraph.Applier.Unions;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;
import dev.entangle.ops.Op;
import dev.entangle.ops.TypeInfo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * {@code x = concat(x[a0:a1], x[a1:a2], ..., dim=d)} when those slices of x already exist and cover
 * dim d from 0 to its size: the paper's constrained lemma {@code X[a:c] -> concat(X[a:b], X[b:c])}
 * (section 4.3.2), which would be useless and explosive if it could invent the cut points, applied
 * only to cuts that the graphs themselves made.
 */
final class SliceTiling implements NativeRule {
  static final String NAME = "slice-tiling";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String doc() {
    return "a tensor equals the concat of existing slices that tile one of its dims";
  }

  @Override
  public List<Consumer<Unions>> search(EGraph<TypeInfo> g) {
    Map<Long, List<Tiling.Piece>> groups = new LinkedHashMap<>();
    for (int c : g.classesWithOp(Op.SLICE.id())) {
      for (ENode n : g.nodes(c)) {
        if (n.op() != Op.SLICE.id() || n.attr(3) != 1) {
          continue;
        }
        long key = ((long) g.find(n.child(0)) << 8) | n.attr(0);
        groups
            .computeIfAbsent(key, k -> new ArrayList<>())
            .add(new Tiling.Piece(n.attr(1), n.attr(2), g.find(c)));
      }
    }
    List<Consumer<Unions>> out = new ArrayList<>();
    for (var e : groups.entrySet()) {
      if (e.getValue().size() < 2) {
        continue;
      }
      int x = (int) (e.getKey() >>> 8);
      int d = (int) (e.getKey() & 0xff);
      long n = g.data(x).shape()[d];
      List<Tiling.Piece> chain = Tiling.cover(e.getValue(), 0, n);
      if (chain != null) {
        int[] parts = chain.stream().mapToInt(Tiling.Piece::cls).toArray();
        out.add(
            unions -> {
              int cat = g.add(new ENode(Op.CONCAT.id(), new long[] {d}, parts));
              unions.union(x, cat);
            });
      }
    }
    return out;
  }
}
