package dev.entangle.rules.layout;

import dev.entangle.core.Op;
import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.Applier.Unions;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;
import dev.entangle.egraph.NodeRange;
import dev.entangle.rules.IdleSearches;
import dev.entangle.rules.NativeRule;
import dev.entangle.rules.SearchDeadline;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The layout fragment decided: every class's {@link BlockMap}s are computed ({@link LayoutForms})
 * and classes with an equal form (an equal index map over the same sources, hence the same shape
 * and dtype) are made equal. Whatever the number of ranks, a composition of slices, concats,
 * reshapes, permutes and expands meets every other composition of the same elements in one step,
 * without rewriting one identity at a time.
 */
public final class BlockMapUnions implements NativeRule<BlockMapUnions.Match> {
  /** The lemma's name in lemma files. */
  public static final String NAME = "block-maps";

  /** What a search finds. */
  public sealed interface Match permits Same, Tiled {}

  /** Two classes with one block map. */
  public record Same(int a, int b) implements Match {}

  /**
   * A class whose block map is that of {@code form} (each rank's share laid out across the ranks).
   */
  public record Tiled(int cls, Blocks form) implements Match {}

  /** A clean form over G_d tensors: a class holding one, or a concat of such forms. */
  public sealed interface Piece permits Whole, Blocks {}

  /** A class holding a G_d tensor. */
  public record Whole(int cls) implements Piece {}

  /** The concat along {@code dim} of {@code parts}. */
  public record Blocks(int dim, List<Piece> parts) implements Piece {}

  /** Most pieces of one tiling. */
  static final int MOST_PIECES = 64;

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String doc() {
    return "compositions of layout operators with equal block maps (index maps over the same sources) are equal";
  }

  private final IdleSearches idle = new IdleSearches();

  @Override
  public boolean wholeGraph() {
    return true;
  }

  @Override
  public void search(EGraph<TypeInfo> g, SearchDeadline deadline, Found<Match> found) {
    deadline.poll();
    if (idle.unchanged(g)) {
      return;
    }
    LayoutForms forms = new LayoutForms(g, deadline);
    Map<BlockMap, Integer> seen = new HashMap<>();
    boolean any = false;
    for (int c : layoutClasses(g)) {
      for (BlockMap m : forms.of(c)) {
        Integer other = seen.putIfAbsent(m, c);
        if (other != null && other != c && sameType(g.data(other), g.data(c))) {
          any = true;
          found.match(new Same(other, c));
        }
        int whole = wholeSource(g, m);
        if (whole >= 0 && whole != c && sameType(g.data(whole), g.data(c))) {
          any = true;
          found.match(new Same(whole, c));
        }
      }
    }
    for (int c : g.classesWithOp(Op.TENSOR.id())) {
      for (BlockMap m : forms.of(c)) {
        seen.putIfAbsent(m, g.find(c));
      }
    }
    Tilings tilings = new Tilings(g, seen);
    for (int c : layoutClasses(g)) {
      deadline.poll();
      for (BlockMap m : forms.of(c)) {
        Tiled t = tilings.of(c, m);
        if (t != null) {
          any = true;
          found.match(t);
          break;
        }
      }
    }
    idle.searched(g, any);
  }

  /** The canonical classes holding a layout node, ascending. */
  private static int[] layoutClasses(EGraph<TypeInfo> g) {
    TreeSet<Integer> out = new TreeSet<>();
    for (Op op : List.of(Op.EXPAND, Op.RESHAPE, Op.PERMUTE, Op.SLICE, Op.CONCAT)) {
      for (int c : g.classesWithOp(op.id())) {
        out.add(g.find(c));
      }
    }
    return out.stream().mapToInt(Integer::intValue).toArray();
  }

  /** The source a form reads whole and unchanged (its identity), or -1. */
  private static int wholeSource(EGraph<TypeInfo> g, BlockMap m) {
    if (m.cellCount() != 1) {
      return -1;
    }
    int src = m.cell(0).source();
    TypeInfo t = g.data(src);
    return t != null && !t.isTuple() && m.isIdentityOf(t.shape()) ? src : -1;
  }

  private static boolean sameType(TypeInfo a, TypeInfo b) {
    return a != null && b != null && a.dtype() == b.dtype() && a.sameShape(b);
  }

  @Override
  public void apply(EGraph<TypeInfo> g, Match match, Unions unions) {
    if (match instanceof Same same) {
      unions.union(same.a(), same.b());
    } else if (match instanceof Tiled t) {
      unions.union(t.cls(), build(g, t.form()));
    }
  }

  private static int build(EGraph<TypeInfo> g, Piece p) {
    if (p instanceof Whole w) {
      return w.cls();
    }
    Blocks b = (Blocks) p;
    int[] parts = new int[b.parts().size()];
    for (int i = 0; i < parts.length; i++) {
      parts[i] = build(g, b.parts().get(i));
    }
    return g.add(new ENode(Op.CONCAT.id(), new long[] {b.dim()}, parts));
  }

  /** The class of a form when all its concats are terms already, else -1. */
  private static int lookup(EGraph<TypeInfo> g, Piece p) {
    if (p instanceof Whole w) {
      return g.find(w.cls());
    }
    Blocks b = (Blocks) p;
    int[] parts = new int[b.parts().size()];
    for (int i = 0; i < parts.length; i++) {
      parts[i] = lookup(g, b.parts().get(i));
      if (parts[i] < 0) {
        return -1;
      }
    }
    return g.lookup(new ENode(Op.CONCAT.id(), new long[] {b.dim()}, parts));
  }

  /**
   * Finds, for a class's block map, G_d tensors whose maps are consecutive slabs of it along one
   * dim, or slabs tiled so along another dim (a grid of blocks, as a two-dimensional mesh lays out
   * its shards): the first such tiling, dims in order, at each offset the largest slab that is a
   * G_d tensor's map or so tiled; none when that form is already in the class.
   */
  private static final class Tilings {
    /** How deep tilings nest: slabs of slabs. */
    private static final int DEPTH = 2;

    private final EGraph<TypeInfo> g;
    private final Map<BlockMap, Integer> classOf;

    /** Per dim, the sizes along it of the maps of classes holding a G_d tensor, largest first. */
    private final Map<Integer, TreeSet<Long>> sizes = new HashMap<>();

    Tilings(EGraph<TypeInfo> g, Map<BlockMap, Integer> classOf) {
      this.g = g;
      this.classOf = classOf;
      for (Map.Entry<BlockMap, Integer> e : classOf.entrySet()) {
        if (holdsTensor(g, e.getValue())) {
          long[] shape = e.getKey().shape();
          for (int d = 0; d < shape.length; d++) {
            sizes
                .computeIfAbsent(d, k -> new TreeSet<>(java.util.Comparator.reverseOrder()))
                .add(shape[d]);
          }
        }
      }
    }

    Tiled of(int c, BlockMap m) {
      if (holdsTensor(g, c) || broadcasts(m)) {
        return null; // a G_d tensor is its own clean form; a broadcast is clean as it is
      }
      int dtype = g.data(c).dtype();
      for (int d = 0; d < m.rank(); d++) {
        Blocks form = along(m, d, dtype, DEPTH);
        if (form != null && lookup(g, form) != g.find(c)) {
          return new Tiled(c, form);
        }
      }
      return null;
    }

    /** A tiling of {@code m} along {@code d}, its slabs nested at most {@code depth} deep. */
    private Blocks along(BlockMap m, int d, int dtype, int depth) {
      TreeSet<Long> candidates = sizes.get(d);
      long n = m.shape()[d];
      if (candidates == null || n < 2) {
        return null;
      }
      List<Piece> pieces = new java.util.ArrayList<>();
      long at = 0;
      while (at < n) {
        Piece piece = null;
        long size = 0;
        for (long s : candidates.tailSet(n - at - (at == 0 ? 1 : 0))) {
          piece = s < 1 ? null : slab(m.slice(d, at, at + s, 1), d, dtype, depth);
          if (piece != null) {
            size = s;
            break;
          }
        }
        if (piece == null || pieces.size() == MOST_PIECES) {
          return null;
        }
        pieces.add(piece);
        at += size;
      }
      return new Blocks(d, List.copyOf(pieces));
    }

    /** A slab as a G_d tensor of the dtype, or tiled along another dim than {@code d}; or null. */
    private Piece slab(BlockMap slab, int d, int dtype, int depth) {
      Integer other = slab == null ? null : classOf.get(slab);
      if (other != null && holdsTensor(g, other) && g.data(other).dtype() == dtype) {
        return new Whole(g.find(other));
      }
      if (slab == null || depth <= 1) {
        return null;
      }
      for (int e = 0; e < slab.rank(); e++) {
        Blocks inner = e == d ? null : along(slab, e, dtype, depth - 1);
        if (inner != null) {
          return inner;
        }
      }
      return null;
    }

    /** Whether some box repeats elements along a dim (a stride 0 over more than one element). */
    private static boolean broadcasts(BlockMap m) {
      int[] grid = m.gridSizes();
      int[] at = new int[grid.length];
      for (int k = 0; k < m.cellCount(); k++) {
        BlockMap.unflatten(k, grid, at);
        for (int d = 0; d < grid.length; d++) {
          long[] b = m.bounds(d);
          if (m.cell(k).stride(d) == 0 && b[at[d] + 1] - b[at[d]] > 1) {
            return true;
          }
        }
      }
      return false;
    }

    private static boolean holdsTensor(EGraph<TypeInfo> g, int c) {
      NodeRange r = g.nodes(c, Op.TENSOR.id());
      return r.to() > r.from();
    }
  }
}
