package dev.entangle.rules.layout;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A composition of layout operators as an index map: the output (of shape {@link #shape}) is cut
 * along each dim at {@link #bounds} into a grid of boxes, and each box ({@link Cell}) reads one
 * source tensor through an affine map of the output index. The form is canonical as far as it goes:
 * every box one element wide along a dim has stride 0 there, and no cut remains across which every
 * pair of boxes continues one affine map (cuts are removed from the left). Equal forms are equal
 * functions of their sources (the form determines every output element); equal functions may still
 * have different forms in rare cases (boxes one element wide), never the converse.
 *
 * <p>Instances are immutable; the operations return null when the result cannot be represented (an
 * empty tensor, more than {@link #MAX_CELLS} boxes, a reshape whose boxes do not fit the new dims).
 */
public final class BlockMap {
  /** The most boxes a form may have. */
  public static final int MAX_CELLS = 4096;

  private final long[] shape;
  private final long[][] bounds;
  private final Cell[] cells;
  private final int hash;

  private BlockMap(long[] shape, long[][] bounds, Cell[] cells) {
    this.shape = shape;
    this.bounds = bounds;
    this.cells = cells;
    int h = Arrays.hashCode(shape);
    for (long[] b : bounds) {
      h = h * 31 + Arrays.hashCode(b);
    }
    this.hash = h * 31 + Arrays.hashCode(cells);
  }

  /** The whole of a source of the given shape, unchanged; null when it is empty. */
  public static BlockMap identity(int source, long[] shape) {
    long[][] bounds = new long[shape.length][];
    long[] strides = rowMajor(shape);
    for (int d = 0; d < shape.length; d++) {
      if (shape[d] <= 0) {
        return null;
      }
      bounds[d] = new long[] {0, shape[d]};
    }
    return new BlockMap(shape.clone(), bounds, new Cell[] {new Cell(source, 0, strides)});
  }

  /** Row-major strides, 0 along dims of size 1 (as {@link #of} normalises them). */
  private static long[] rowMajor(long[] shape) {
    long[] strides = new long[shape.length];
    long s = 1;
    for (int d = shape.length - 1; d >= 0; d--) {
      strides[d] = shape[d] == 1 ? 0 : s;
      s *= shape[d];
    }
    return strides;
  }

  /** Whether this reads the whole of one source of the given shape, unchanged. */
  public boolean isIdentityOf(long[] sourceShape) {
    if (cells.length != 1 || !Arrays.equals(shape, sourceShape) || cells[0].base() != 0) {
      return false;
    }
    return Arrays.equals(cells[0].strides(), rowMajor(shape));
  }

  /**
   * The canonical form of a grid: boxes normalised, removable cuts removed; null when a dim is
   * empty or there are too many boxes.
   */
  static BlockMap of(long[] shape, long[][] bounds, Cell[] cells) {
    for (long n : shape) {
      if (n <= 0) {
        return null;
      }
    }
    if (cells.length > MAX_CELLS) {
      return null;
    }
    Grid grid = new Grid(shape, bounds, cells);
    grid.normalise();
    if (cells.length > 1) {
      grid.removeCuts();
    }
    return grid.freeze();
  }

  public long[] shape() {
    return shape.clone();
  }

  public int rank() {
    return shape.length;
  }

  /** The cut points of dim d, from 0 to its size. */
  public long[] bounds(int d) {
    return bounds[d].clone();
  }

  /** The boxes, in row-major order of the grid. */
  public List<Cell> cells() {
    return List.of(cells);
  }

  /** Number of boxes along dim d. */
  public int boxes(int d) {
    return bounds[d].length - 1;
  }

  /** The sources read, in order of first appearance. */
  public int[] sources() {
    int[] out = new int[cells.length];
    int n = 0;
    for (Cell c : cells) {
      boolean seen = false;
      for (int i = 0; i < n && !seen; i++) {
        seen = out[i] == c.source();
      }
      if (!seen) {
        out[n++] = c.source();
      }
    }
    return Arrays.copyOf(out, n);
  }

  /** The source element (source class and flat index) read at output index {@code i}. */
  public long[] at(long[] i) {
    int k = 0;
    for (int d = 0; d < shape.length; d++) {
      int j = Arrays.binarySearch(bounds[d], i[d]);
      int box = j >= 0 ? j : -j - 2;
      k = k * boxes(d) + box;
    }
    Cell c = cells[k];
    long flat = c.base();
    for (int d = 0; d < shape.length; d++) {
      flat += c.stride(d) * i[d];
    }
    return new long[] {c.source(), flat};
  }

  // ---- operators --------------------------------------------------------------------------

  /** {@code permute[dims]}: output dim i is dim {@code dims[i]} of this. */
  public BlockMap permute(long[] dims) {
    int r = shape.length;
    if (dims.length != r) {
      return null;
    }
    long[] s = new long[r];
    long[][] b = new long[r][];
    int[] gridIn = gridSizes();
    int[] gridOut = new int[r];
    for (int i = 0; i < r; i++) {
      s[i] = shape[(int) dims[i]];
      b[i] = bounds[(int) dims[i]];
      gridOut[i] = gridIn[(int) dims[i]];
    }
    Cell[] out = new Cell[cells.length];
    int[] g = new int[r];
    int[] og = new int[r];
    for (int k = 0; k < out.length; k++) {
      unflatten(k, gridOut, g);
      for (int i = 0; i < r; i++) {
        og[(int) dims[i]] = g[i];
      }
      Cell c = cells[flatten(og, gridIn)];
      long[] st = new long[r];
      for (int i = 0; i < r; i++) {
        st[i] = c.stride((int) dims[i]);
      }
      out[k] = c.with(c.base(), st);
    }
    return of(s, b, out);
  }

  /** {@code slice[dim, start, end, step]}. */
  public BlockMap slice(int dim, long start, long end, long step) {
    if (dim < 0 || dim >= shape.length || start < 0 || end > shape[dim] || step < 1) {
      return null;
    }
    long n = end <= start ? 0 : (end - start + step - 1) / step;
    if (n == 0) {
      return null;
    }
    List<Long> nb = new ArrayList<>();
    List<Integer> from = new ArrayList<>();
    for (int k = 0; k < boxes(dim); k++) {
      long lo = Math.max(0, ceilDiv(bounds[dim][k] - start, step));
      long hi = Math.min(n, ceilDiv(bounds[dim][k + 1] - start, step));
      if (lo < hi) {
        nb.add(lo);
        from.add(k);
      }
    }
    nb.add(n);
    long[] s = shape.clone();
    s[dim] = n;
    long[][] b = bounds.clone();
    b[dim] = Longs.of(nb);
    int[] gridIn = gridSizes();
    int[] gridOut = gridIn.clone();
    gridOut[dim] = from.size();
    Cell[] out = new Cell[count(gridOut)];
    int[] g = new int[shape.length];
    for (int k = 0; k < out.length; k++) {
      unflatten(k, gridOut, g);
      g[dim] = from.get(g[dim]);
      Cell c = cells[flatten(g, gridIn)];
      long[] st = c.strides().clone();
      st[dim] = c.stride(dim) * step;
      out[k] = c.with(c.base() + c.stride(dim) * start, st);
    }
    return of(s, b, out);
  }

  /** {@code concat[dim](parts...)}. */
  public static BlockMap concat(List<BlockMap> parts, int dim) {
    BlockMap first = parts.get(0);
    int r = first.rank();
    if (dim < 0 || dim >= r) {
      return null;
    }
    long[] s = first.shape.clone();
    s[dim] = 0;
    long[][] b = new long[r][];
    List<Long> along = new ArrayList<>();
    long[] offsets = new long[parts.size()];
    for (int p = 0; p < parts.size(); p++) {
      BlockMap m = parts.get(p);
      if (m.rank() != r) {
        return null;
      }
      for (int d = 0; d < r; d++) {
        if (d != dim && m.shape[d] != s[d]) {
          return null;
        }
      }
      offsets[p] = s[dim];
      for (int k = 0; k < m.boxes(dim); k++) {
        along.add(s[dim] + m.bounds[dim][k]);
      }
      s[dim] += m.shape[dim];
    }
    along.add(s[dim]);
    for (int d = 0; d < r; d++) {
      if (d == dim) {
        b[d] = Longs.of(along);
      } else {
        List<long[]> cuts = new ArrayList<>(parts.size());
        for (BlockMap m : parts) {
          cuts.add(m.bounds[d]);
        }
        b[d] = Longs.union(cuts);
      }
    }
    int[] grid = new int[r];
    long total = 1;
    for (int d = 0; d < r; d++) {
      grid[d] = b[d].length - 1;
      total *= grid[d];
    }
    if (total > MAX_CELLS) {
      return null;
    }
    Cell[] out = new Cell[(int) total];
    int[] g = new int[r];
    int[] pg = new int[r];
    for (int k = 0; k < out.length; k++) {
      unflatten(k, grid, g);
      long at = b[dim][g[dim]];
      int p = 0;
      while (p + 1 < parts.size() && offsets[p + 1] <= at) {
        p++;
      }
      BlockMap m = parts.get(p);
      for (int d = 0; d < r; d++) {
        long lo = d == dim ? at - offsets[p] : b[d][g[d]];
        int j = Arrays.binarySearch(m.bounds[d], lo);
        pg[d] = j >= 0 ? j : -j - 2;
      }
      Cell c = m.cells[flatten(pg, m.gridSizes())];
      out[k] = c.with(c.base() - c.stride(dim) * offsets[p], c.strides());
    }
    return of(s, b, out);
  }

  /** {@code expand[sizes]}: dims right-aligned, each of size 1 or equal. */
  public BlockMap expand(long[] sizes) {
    int r = shape.length;
    int off = sizes.length - r;
    if (off < 0) {
      return null;
    }
    long[][] b = new long[sizes.length][];
    int[] grid = new int[sizes.length];
    for (int d = 0; d < sizes.length; d++) {
      int src = d - off;
      if (src >= 0 && shape[src] == sizes[d]) {
        b[d] = bounds[src];
      } else if (src < 0 || shape[src] == 1) {
        b[d] = new long[] {0, sizes[d]};
      } else {
        return null;
      }
      grid[d] = b[d].length - 1;
    }
    Cell[] out = new Cell[cells.length];
    for (int k = 0; k < cells.length; k++) {
      Cell c = cells[k];
      long[] st = new long[sizes.length];
      for (int d = off; d < sizes.length; d++) {
        st[d] = shape[d - off] == sizes[d] ? c.stride(d - off) : 0;
      }
      out[k] = c.with(c.base(), st);
    }
    return of(sizes.clone(), b, out);
  }

  /** {@code reshape[sizes]}: the same elements in row-major order; see {@link Reshape}. */
  public BlockMap reshape(long[] sizes) {
    return Reshape.apply(this, sizes);
  }

  // ---- grid arithmetic, for this package ------------------------------------------------------

  int[] gridSizes() {
    int[] g = new int[shape.length];
    for (int d = 0; d < g.length; d++) {
      g[d] = boxes(d);
    }
    return g;
  }

  long[][] allBounds() {
    return bounds;
  }

  Cell cell(int k) {
    return cells[k];
  }

  int cellCount() {
    return cells.length;
  }

  static int count(int[] grid) {
    int n = 1;
    for (int g : grid) {
      n *= g;
    }
    return n;
  }

  static void unflatten(int k, int[] grid, int[] out) {
    for (int d = grid.length - 1; d >= 0; d--) {
      out[d] = k % grid[d];
      k /= grid[d];
    }
  }

  static int flatten(int[] g, int[] grid) {
    int k = 0;
    for (int d = 0; d < grid.length; d++) {
      k = k * grid[d] + g[d];
    }
    return k;
  }

  static long ceilDiv(long a, long b) {
    return -Math.floorDiv(-a, b);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BlockMap m
        && m.hash == hash
        && Arrays.equals(m.shape, shape)
        && Arrays.deepEquals(m.bounds, bounds)
        && Arrays.equals(m.cells, cells);
  }

  @Override
  public int hashCode() {
    return hash;
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder(Arrays.toString(shape)).append(" cuts");
    for (long[] b : bounds) {
      sb.append(Arrays.toString(b));
    }
    return sb.append(' ').append(Arrays.toString(cells)).toString();
  }

  /** A mutable grid, normalised and coarsened once into a {@link BlockMap}. */
  private static final class Grid {
    private final long[] shape;
    private final List<long[]> bounds = new ArrayList<>();
    private Cell[] cells;

    Grid(long[] shape, long[][] bounds, Cell[] cells) {
      this.shape = shape;
      for (long[] b : bounds) {
        this.bounds.add(b);
      }
      this.cells = cells.clone();
    }

    int[] grid() {
      int[] g = new int[shape.length];
      for (int d = 0; d < g.length; d++) {
        g[d] = bounds.get(d).length - 1;
      }
      return g;
    }

    /** Folds the stride of every dim along which a box is one element wide into its base. */
    void normalise() {
      int[] grid = grid();
      int[] g = new int[shape.length];
      for (int k = 0; k < cells.length; k++) {
        unflatten(k, grid, g);
        Cell c = cells[k];
        long base = c.base();
        long[] st = null;
        for (int d = 0; d < shape.length; d++) {
          long[] b = bounds.get(d);
          if (b[g[d] + 1] - b[g[d]] == 1 && c.stride(d) != 0) {
            st = st == null ? c.strides().clone() : st;
            base += c.stride(d) * b[g[d]];
            st[d] = 0;
          }
        }
        if (st != null) {
          cells[k] = c.with(base, st);
        }
      }
    }

    /** Removes, dim by dim and from the left, every cut across which all boxes continue. */
    void removeCuts() {
      for (int d = 0; d < shape.length; d++) {
        int k = 0;
        while (k < bounds.get(d).length - 2) {
          Cell[] merged = mergeAcross(d, k);
          if (merged == null) {
            k++;
          } else {
            long[] b = bounds.get(d);
            long[] nb = new long[b.length - 1];
            System.arraycopy(b, 0, nb, 0, k + 1);
            System.arraycopy(b, k + 2, nb, k + 1, b.length - k - 2);
            bounds.set(d, nb);
            cells = merged;
          }
        }
      }
    }

    /** The cells with boxes k and k+1 of dim d merged, or null when some pair does not continue. */
    private Cell[] mergeAcross(int d, int k) {
      int[] grid = grid();
      long[] b = bounds.get(d);
      long loL = b[k];
      long extL = b[k + 1] - b[k];
      long loR = b[k + 1];
      long extR = b[k + 2] - b[k + 1];
      int[] ng = grid.clone();
      ng[d]--;
      Cell[] out = new Cell[count(ng)];
      int[] g = new int[shape.length];
      for (int n = 0; n < out.length; n++) {
        unflatten(n, ng, g);
        if (g[d] != k) {
          int gd = g[d];
          if (gd > k) {
            g[d]++;
          }
          out[n] = cells[flatten(g, grid)];
          g[d] = gd;
          continue;
        }
        Cell left = cells[flatten(g, grid)];
        g[d] = k + 1;
        Cell right = cells[flatten(g, grid)];
        g[d] = k;
        Cell m = merge(left, right, d, loL, extL, loR, extR);
        if (m == null) {
          return null;
        }
        out[n] = m;
      }
      return out;
    }

    private static Cell merge(Cell l, Cell r, int d, long loL, long extL, long loR, long extR) {
      if (l.source() != r.source()) {
        return null;
      }
      for (int e = 0; e < l.strides().length; e++) {
        if (e != d && l.stride(e) != r.stride(e)) {
          return null;
        }
      }
      long s;
      if (extL > 1 && extR > 1) {
        if (l.stride(d) != r.stride(d)) {
          return null;
        }
        s = l.stride(d);
      } else if (extL > 1) {
        s = l.stride(d);
      } else if (extR > 1) {
        s = r.stride(d);
      } else {
        s = r.base() - l.base();
      }
      long baseL = extL > 1 ? l.base() : l.base() - s * loL;
      long baseR = extR > 1 ? r.base() : r.base() - s * loR;
      if (baseL != baseR) {
        return null;
      }
      long[] st = l.strides().clone();
      st[d] = s;
      return l.with(baseL, st);
    }

    BlockMap freeze() {
      return new BlockMap(shape, bounds.toArray(new long[0][]), cells);
    }
  }
}
