package dev.entangle.rules.layout;

import dev.entangle.core.Op;
import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;
import dev.entangle.rules.layout.BlockMapUnions.Blocks;
import dev.entangle.rules.layout.BlockMapUnions.Part;
import dev.entangle.rules.layout.BlockMapUnions.Piece;
import dev.entangle.rules.layout.BlockMapUnions.Tiled;
import dev.entangle.rules.layout.BlockMapUnions.Whole;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Finds, for a class's block map, G_d tensors whose maps are consecutive slabs of it along one dim,
 * or slabs tiled so along another dim (a grid of blocks, as a two-dimensional mesh lays out its
 * shards): the first such tiling, dims in order, at each offset the largest slab that is a G_d
 * tensor's map or so tiled, else the box there when it is a range of one G_d tensor (a slice); none
 * when that form is already in the class. Once the coarsest tiling along a dim is there, the finest
 * one (the smallest such slab at each offset) follows: a rank's shard that the rank splits into
 * micro-batches tiles the sequential tensor by the micro-batches too, so a product of it splits
 * toward the micro-batches' products. A broadcast is tiled by whole G_d tensors only (the ranks'
 * own broadcasts), and only along the first dim that they tile.
 */
final class Tilings {
  /** Most pieces of one tiling. */
  private static final int MOST_PIECES = 64;

  /** How deep tilings nest: slabs of slabs. */
  private static final int DEPTH = 2;

  private final EGraph<TypeInfo> g;

  /** The block maps of the classes holding a G_d tensor, each to its class. */
  private final Map<BlockMap, Integer> tensorOf;

  /** Per dim, the sizes along it of the maps of classes holding a G_d tensor, largest first. */
  private final Map<Integer, TreeSet<Long>> sizes = new HashMap<>();

  /** Over {@code tensorOf}: the block maps of the classes holding a G_d tensor. */
  Tilings(EGraph<TypeInfo> g, Map<BlockMap, Integer> tensorOf) {
    this.g = g;
    this.tensorOf = tensorOf;
    for (BlockMap m : tensorOf.keySet()) {
      long[] shape = m.shape();
      for (int d = 0; d < shape.length; d++) {
        sizes.computeIfAbsent(d, k -> new TreeSet<>(Comparator.reverseOrder())).add(shape[d]);
      }
    }
  }

  /** A tiling of class {@code c}, whose map is {@code m}, that is not in it yet; or null. */
  Tiled of(int c, BlockMap m) {
    if (holdsTensor(g, c)) {
      return null; // a G_d tensor is its own clean form
    }
    // a broadcast, which is not clean, is tiled by whole G_d tensors only (the ranks' broadcasts)
    boolean broadcast = broadcasts(m);
    for (int source : m.sources()) {
      if (!holdsTensor(g, source)) {
        return null; // G_d tensors lay out G_d tensors only
      }
    }
    int dtype = g.data(c).dtype();
    for (int d = 0; d < m.rank(); d++) {
      Blocks coarsest = along(m, d, dtype, DEPTH, false);
      if (coarsest == null || (broadcast && !wholeTensors(coarsest))) {
        continue;
      }
      if (broadcast) {
        return lookup(g, coarsest) != g.find(c) ? new Tiled(c, coarsest) : null;
      }
      if (lookup(g, coarsest) != g.find(c)) {
        return new Tiled(c, coarsest);
      }
      Blocks finest = along(m, d, dtype, DEPTH, true);
      if (finest != null && !finest.equals(coarsest) && lookup(g, finest) != g.find(c)) {
        return new Tiled(c, finest);
      }
    }
    return null;
  }

  /**
   * A tiling of {@code m} along {@code d}, its slabs nested at most {@code depth} deep, at each
   * offset the largest slab (or, when {@code finest}, the smallest) that is a G_d tensor's map.
   */
  private Blocks along(BlockMap m, int d, int dtype, int depth, boolean finest) {
    TreeSet<Long> candidates = sizes.get(d);
    long n = m.shape()[d];
    if (candidates == null || n < 2) {
      return null;
    }
    List<Piece> pieces = new ArrayList<>();
    long at = 0;
    while (at < n) {
      Piece piece = null;
      long size = 0;
      long most = at == 0 ? n - 1 : n - at; // a tiling has two pieces or more
      for (long s :
          finest ? candidates.tailSet(most, true).descendingSet() : candidates.tailSet(most)) {
        piece = s < 1 ? null : slab(m.slice(d, at, at + s, 1), d, dtype, depth);
        if (piece != null) {
          size = s;
          break;
        }
      }
      if (piece == null) { // the box at this offset, as a range of one G_d tensor
        size = nextBound(m.bounds(d), at) - at;
        piece = size > most ? null : part(m.slice(d, at, at + size, 1), d, dtype);
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
    Integer other = slab == null ? null : tensorOf.get(slab);
    if (other != null && g.data(other).dtype() == dtype) {
      return new Whole(g.find(other));
    }
    if (slab == null || depth <= 1) {
      return null;
    }
    for (int e = 0; e < slab.rank(); e++) {
      Blocks inner = e == d ? null : along(slab, e, dtype, depth - 1, false);
      if (inner != null) {
        return inner;
      }
    }
    return null;
  }

  /** Whether a tiling's pieces are all whole G_d tensors (no range of one). */
  private static boolean wholeTensors(Piece p) {
    if (p instanceof Whole) {
      return true;
    }
    return p instanceof Blocks b && b.parts().stream().allMatch(Tilings::wholeTensors);
  }

  /** The first cut point after {@code at}. */
  private static long nextBound(long[] bounds, long at) {
    for (long b : bounds) {
      if (b > at) {
        return b;
      }
    }
    return bounds[bounds.length - 1];
  }

  /**
   * A slab that is a range along {@code d} of one G_d tensor of the dtype, all of it along every
   * other dim (a rank's rows of a fused weight whose blocks interleave across the ranks); or null.
   */
  private Part part(BlockMap slab, int d, int dtype) {
    if (slab == null || slab.cellCount() != 1) {
      return null;
    }
    Cell cell = slab.cell(0);
    int source = cell.source();
    TypeInfo t = g.data(source);
    if (!holdsTensor(g, source) || t == null || t.isTuple() || t.dtype() != dtype) {
      return null;
    }
    long[] shape = t.shape();
    BlockMap whole = BlockMap.identity(source, shape);
    if (shape.length != slab.rank() || whole == null) {
      return null;
    }
    // the start from the source's own step along d (a box one element wide has stride 0 there)
    long rowStride = 1;
    for (int e = d + 1; e < shape.length; e++) {
      rowStride *= shape[e];
    }
    long start = cell.base() / rowStride;
    long end = start + slab.shape()[d];
    if (start < 0 || end > shape[d] || !slab.equals(whole.slice(d, start, end, 1))) {
      return null;
    }
    return new Part(g.find(source), d, start, end);
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
    return g.holds(c, Op.TENSOR.id());
  }

  /** Adds a form's concats; returns its class. */
  static int build(EGraph<TypeInfo> g, Piece p) {
    if (p instanceof Whole w) {
      return w.cls();
    }
    if (p instanceof Part r) {
      return g.add(sliceNode(r, r.cls()));
    }
    Blocks b = (Blocks) p;
    int[] parts = new int[b.parts().size()];
    for (int i = 0; i < parts.length; i++) {
      parts[i] = build(g, b.parts().get(i));
    }
    return g.add(new ENode(Op.CONCAT.id(), new long[] {b.dim()}, parts));
  }

  /** The class of a form when all its concats are terms already, else -1. */
  static int lookup(EGraph<TypeInfo> g, Piece p) {
    if (p instanceof Whole w) {
      return g.find(w.cls());
    }
    if (p instanceof Part r) {
      return g.lookup(sliceNode(r, g.find(r.cls())));
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

  private static ENode sliceNode(Part r, int cls) {
    return new ENode(Op.SLICE.id(), new long[] {r.dim(), r.start(), r.end(), 1}, new int[] {cls});
  }
}
