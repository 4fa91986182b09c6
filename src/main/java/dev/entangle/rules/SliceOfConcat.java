package dev.entangle.rules;

import dev.entangle.core.Op;
import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.Applier.Unions;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code slice(concat(x1, ..., xn, dim=d), dim=d, start=s, end=e)} is the concat of the parts the
 * range overlaps, each sliced to its overlap (a part inside the range whole), written flat in one
 * step; a range inside one part is a slice of that part. The rule language could state this only a
 * part at a time, building nested concats along the way.
 */
final class SliceOfConcat implements NativeRule<SliceOfConcat.Overlap> {
  static final String NAME = "slice-of-concat";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String doc() {
    return "a slice of a concat along its dim is the concat of the overlapped parts, each sliced to its overlap";
  }

  /**
   * A slice of a concat along its dim.
   *
   * @param slice the slice's class
   * @param dim the dim
   * @param pieces the parts it overlaps ({@link #pieces})
   */
  record Overlap(int slice, long dim, long[][] pieces) {}

  @Override
  public void search(EGraph<TypeInfo> g, SearchDeadline deadline, Found<Overlap> found) {
    for (EGraph.Held held : g.nodesWithOp(Op.SLICE.id())) {
      deadline.poll();
      int c = held.cls();
      ENode s = held.node();
      if (s.attr(3) != 1 || s.attr(2) <= s.attr(1)) {
        continue; // a stride, or an empty range: no part to take
      }
      long d = s.attr(0);
      long from = s.attr(1);
      long to = s.attr(2);
      for (ENode cat : g.nodes(s.child(0))) {
        if (cat.op() == Op.CONCAT.id() && cat.attr(0) == d) {
          long[][] pieces = pieces(g, cat, (int) d, from, to);
          found.match(new Overlap(g.find(c), d, pieces));
        }
      }
    }
  }

  @Override
  public void apply(EGraph<TypeInfo> g, Overlap m, Unions unions) {
    unions.union(m.slice(), build(g, m.pieces(), m.dim()));
  }

  /** For each overlapped part: {child class, start, end, whole (1) or not (0)}. */
  private static long[][] pieces(EGraph<TypeInfo> g, ENode cat, int d, long from, long to) {
    List<long[]> out = new ArrayList<>();
    long offset = 0;
    for (int i = 0; i < cat.arity(); i++) {
      long n = g.data(cat.child(i)).shape()[d];
      long a = Math.max(from, offset);
      long b = Math.min(to, offset + n);
      if (a < b) {
        out.add(
            new long[] {
              cat.child(i), a - offset, b - offset, a == offset && b == offset + n ? 1 : 0
            });
      }
      offset += n;
    }
    return out.toArray(long[][]::new);
  }

  private static int build(EGraph<TypeInfo> g, long[][] pieces, long d) {
    int[] parts = new int[pieces.length];
    for (int i = 0; i < parts.length; i++) {
      long[] p = pieces[i];
      parts[i] =
          p[3] == 1
              ? (int) p[0]
              : g.add(
                  new ENode(Op.SLICE.id(), new long[] {d, p[1], p[2], 1}, new int[] {(int) p[0]}));
    }
    return parts.length == 1 ? parts[0] : g.add(new ENode(Op.CONCAT.id(), new long[] {d}, parts));
  }
}
