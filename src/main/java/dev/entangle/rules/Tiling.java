package dev.entangle.rules;

import java.util.ArrayList;
import java.util.List;

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

  private static boolean extend(List<Piece> pieces, long start, long at, long to, List<Piece> chain, int depth) {
    if (at == to) {
      return true;
    }
    if (depth > 64) {
      return false;
    }
    for (Piece p : pieces) {
      if (p.start() == at && p.end() > at && p.end() <= to && !(p.start() == start && p.end() == to)) {
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
