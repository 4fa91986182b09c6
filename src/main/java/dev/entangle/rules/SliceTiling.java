package dev.entangle.rules;

import dev.entangle.core.Op;
import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.Applier.Unions;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code x = concat(x[a0:a1], x[a1:a2], ..., dim=d)} when those slices of x already exist and cover
 * dim d from 0 to its size, and likewise {@code x[a:c] = concat(x[a:b], x[b:c])} for an existing
 * slice whose range other existing slices tile: the paper's constrained lemma {@code X[a:c] ->
 * concat(X[a:b], X[b:c])} (section 4.3.2), which would be useless and explosive if it could invent
 * the cut points, applied only to cuts that the graphs themselves made.
 */
final class SliceTiling implements NativeRule<EqualsNode> {
  static final String NAME = "slice-tiling";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String doc() {
    return "a tensor (or a slice of it) equals the concat of existing slices that tile one of its dims (the slice's range)";
  }

  @Override
  public void search(EGraph<TypeInfo> g, SearchDeadline deadline, Found<EqualsNode> found) {
    Map<Long, List<Tiling.Piece>> groups = new LinkedHashMap<>();
    for (EGraph.Held held : g.nodesWithOp(Op.SLICE.id())) {
      deadline.poll();
      int c = held.cls();
      ENode n = held.node();
      if (n.attr(3) != 1) {
        continue;
      }
      long key = ((long) g.find(n.child(0)) << 8) | n.attr(0);
      groups
          .computeIfAbsent(key, k -> new ArrayList<>())
          .add(new Tiling.Piece(n.attr(1), n.attr(2), g.find(c)));
    }
    for (var e : groups.entrySet()) {
      deadline.poll();
      if (e.getValue().size() < 2) {
        continue;
      }
      int x = (int) (e.getKey() >>> 8);
      int d = (int) (e.getKey() & 0xff);
      long n = g.data(x).shape()[d];
      tile(x, d, Tiling.cover(e.getValue(), 0, n), found);
      if (e.getValue().size() >= 3) {
        for (Tiling.Piece whole : e.getValue()) {
          deadline.poll();
          tile(whole.cls(), d, Tiling.cover(e.getValue(), whole.start(), whole.end()), found);
        }
      }
    }
  }

  @Override
  public void apply(EGraph<TypeInfo> g, EqualsNode match, Unions unions) {
    match.apply(g, unions);
  }

  /** Equates {@code whole} with the concat of the chain's pieces along d, when there is a chain. */
  private static void tile(int whole, int d, List<Tiling.Piece> chain, Found<EqualsNode> found) {
    if (chain != null) {
      int[] parts = chain.stream().mapToInt(Tiling.Piece::cls).toArray();
      found.match(new EqualsNode(whole, Op.CONCAT.id(), new long[] {d}, parts));
    }
  }
}
