package dev.entangle.rules;

import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;

/** Finding existing intervals that cover a range exactly, for the tiling lemmas. */
final class Tiling {
  private Tiling() {}

  /** An interval [start, end) held by the class {@code cls}. */
  record Piece(long start, long end, int cls) {}

  /**
   * Two or more pieces, in order, that cover [from, to) exactly without using a piece that is the
   * whole range itself; null when there is none. Depth-first; pieces are few.
   */
  static List<Piece> cover(List<Piece> pieces, long from, long to) {
    List<Piece> chain = new ArrayList<>();
    return extend(pieces, from, from, to, chain, 0) && chain.size() >= 2 ? chain : null;
  }

  /**
   * For the nodes of operator {@code op} whose attributes 0 and 1 are a range [lo, hi), grouped by
   * {@code operands} (a key of their operand classes): each node equals {@code combine} (with
   * {@code attrs}) of other nodes of its group whose ranges tile its own: found, in order.
   */
  static void ranges(
      EGraph<TypeInfo> g,
      int op,
      ToLongFunction<ENode> operands,
      int combine,
      long[] attrs,
      SearchDeadline deadline,
      NativeRule.Found<EqualsNode> found) {
    Map<Long, List<Piece>> groups = new LinkedHashMap<>();
    for (EGraph.Held held : g.nodesWithOp(op)) {
      deadline.poll();
      int c = held.cls();
      ENode n = held.node();
      groups
          .computeIfAbsent(operands.applyAsLong(n), k -> new ArrayList<>())
          .add(new Piece(n.attr(0), n.attr(1), g.find(c)));
    }
    for (List<Piece> pieces : groups.values()) {
      if (pieces.size() < 3) {
        continue;
      }
      for (Piece whole : pieces) {
        deadline.poll();
        List<Piece> chain = cover(pieces, whole.start(), whole.end());
        if (chain != null) {
          int[] parts = chain.stream().mapToInt(Piece::cls).toArray();
          found.match(new EqualsNode(whole.cls(), combine, attrs, parts));
        }
      }
    }
  }

  private static boolean extend(
      List<Piece> pieces, long start, long at, long to, List<Piece> chain, int depth) {
    if (at == to) {
      return true;
    }
    if (depth > 64) {
      return false;
    }
    for (Piece p : pieces) {
      if (p.start() == at
          && p.end() > at
          && p.end() <= to
          && !(p.start() == start && p.end() == to)) {
        chain.add(p);
        if (extend(pieces, start, p.end(), to, chain, depth + 1)) {
          return true;
        }
        chain.remove(chain.size() - 1);
      }
    }
    return false;
  }
}
