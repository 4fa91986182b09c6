package dev.entangle.rules.layout;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A reshape of a {@link BlockMap}: the dims of size 1 are dropped, the remaining dims of both
 * shapes are refined to their common factorisation (each input dim split into factors, which needs
 * its cuts on multiples of the inner factor), and the factors are merged into the output dims (a
 * merge keeps a box whole when the inner dim is uncut and the box steps contiguously, else splits
 * the outer dim into boxes one element wide). Null when the shapes have no common factorisation, a
 * cut falls inside a factor, or the boxes grow past {@link BlockMap#MAX_CELLS}.
 */
final class Reshape {
  private Reshape() {}

  static BlockMap apply(BlockMap m, long[] sizes) {
    long[] in = m.shape();
    if (Arrays.equals(in, sizes)) {
      return m;
    }
    long[] inner = Longs.withoutOnes(in);
    long[] outer = Longs.withoutOnes(sizes);
    List<long[]> inFactors = new ArrayList<>();
    List<long[]> outFactors = new ArrayList<>();
    if (!factorise(inner, outer, inFactors, outFactors)) {
      BlockMap flat = apply(m, new long[] {m.shape().length == 0 ? 1 : numel(in)});
      return flat == null ? null : apply(flat, sizes);
    }
    BlockMap x = dropUnitDims(m);
    for (int k = inner.length - 1; k >= 0 && x != null; k--) {
      long[] f = inFactors.get(k);
      for (int j = 0; j < f.length - 1 && x != null; j++) {
        x = split(x, k + j, f[j], rest(f, j + 1));
      }
    }
    int at = 0;
    List<Integer> starts = new ArrayList<>();
    for (long[] f : outFactors) {
      starts.add(at);
      at += f.length;
    }
    for (int k = outFactors.size() - 1; k >= 0 && x != null; k--) {
      long[] f = outFactors.get(k);
      for (int j = f.length - 2; j >= 0 && x != null; j--) {
        x = merge(x, starts.get(k) + j);
      }
    }
    return x == null ? null : insertUnitDims(x, sizes);
  }

  private static long numel(long[] s) {
    long n = 1;
    for (long v : s) {
      n *= v;
    }
    return n;
  }

  private static long rest(long[] f, int from) {
    long p = 1;
    for (int i = from; i < f.length; i++) {
      p *= f[i];
    }
    return p;
  }

  /**
   * The common factorisation of two shapes (no 1s) with equal products, as each dim's factors,
   * outer first; false when there is none (a factor of one side does not divide the other's).
   */
  static boolean factorise(long[] a, long[] b, List<long[]> fa, List<long[]> fb) {
    int i = 0;
    int j = 0;
    long ra = a.length > 0 ? a[0] : 1;
    long rb = b.length > 0 ? b[0] : 1;
    List<Long> ca = new ArrayList<>();
    List<Long> cb = new ArrayList<>();
    while (i < a.length && j < b.length) {
      long f = Math.min(ra, rb);
      if (Math.max(ra, rb) % f != 0) {
        return false;
      }
      ca.add(f);
      cb.add(f);
      ra /= f;
      rb /= f;
      if (ra == 1) {
        fa.add(Longs.of(ca));
        ca.clear();
        i++;
        ra = i < a.length ? a[i] : 1;
      }
      if (rb == 1) {
        fb.add(Longs.of(cb));
        cb.clear();
        j++;
        rb = j < b.length ? b[j] : 1;
      }
    }
    return i == a.length && j == b.length;
  }

  private static BlockMap dropUnitDims(BlockMap m) {
    long[] shape = m.shape();
    int r = shape.length;
    int[] keep = new int[r];
    int kept = 0;
    for (int d = 0; d < r; d++) {
      if (shape[d] != 1) {
        keep[kept++] = d;
      }
    }
    keep = Arrays.copyOf(keep, kept);
    if (keep.length == r) {
      return m;
    }
    long[] s = new long[keep.length];
    long[][] b = new long[keep.length][];
    for (int i = 0; i < keep.length; i++) {
      s[i] = shape[keep[i]];
      b[i] = m.allBounds()[keep[i]];
    }
    Cell[] out = new Cell[m.cellCount()];
    for (int k = 0; k < out.length; k++) {
      Cell c = m.cell(k);
      long[] st = new long[keep.length];
      for (int i = 0; i < keep.length; i++) {
        st[i] = c.stride(keep[i]);
      }
      out[k] = c.with(c.base(), st);
    }
    return BlockMap.of(s, b, out);
  }

  private static BlockMap insertUnitDims(BlockMap m, long[] sizes) {
    long[] shape = m.shape();
    if (shape.length == sizes.length) {
      return m;
    }
    int[] from = new int[sizes.length];
    int at = 0;
    for (int d = 0; d < sizes.length; d++) {
      from[d] = sizes[d] == 1 ? -1 : at++;
    }
    long[][] b = new long[sizes.length][];
    for (int d = 0; d < sizes.length; d++) {
      b[d] = from[d] < 0 ? new long[] {0, 1} : m.allBounds()[from[d]];
    }
    Cell[] out = new Cell[m.cellCount()];
    for (int k = 0; k < out.length; k++) {
      Cell c = m.cell(k);
      long[] st = new long[sizes.length];
      for (int d = 0; d < sizes.length; d++) {
        st[d] = from[d] < 0 ? 0 : c.stride(from[d]);
      }
      out[k] = c.with(c.base(), st);
    }
    return BlockMap.of(sizes.clone(), b, out);
  }

  /**
   * Dim d (of size n1·n2) as dims d (n1, outer) and d+1 (n2). When every cut is on a row boundary
   * (a multiple of n2) the boxes stay whole; else the outer dim is cut into rows one element wide
   * and the inner dim at every cut's place within its row. Null when there would be too many boxes.
   */
  private static BlockMap split(BlockMap m, int d, long n1, long n2) {
    long[] shape = m.shape();
    long[] bd = m.bounds(d);
    boolean onRows = true;
    for (long c : bd) {
      onRows &= c % n2 == 0;
    }
    long[] outerB;
    long[] innerB;
    if (onRows) {
      outerB = new long[bd.length];
      for (int k = 0; k < bd.length; k++) {
        outerB[k] = bd[k] / n2;
      }
      innerB = new long[] {0, n2};
    } else {
      if (n1 > BlockMap.MAX_CELLS) {
        return null; // a box per row: more boxes than a form may have
      }
      outerB = new long[(int) n1 + 1];
      for (int k = 0; k <= n1; k++) {
        outerB[k] = k;
      }
      long[] inner = new long[bd.length + 1];
      for (int k = 0; k < bd.length; k++) {
        inner[k] = bd[k] % n2;
      }
      inner[bd.length] = n2;
      innerB = Longs.sortedDistinct(inner);
    }
    int r = shape.length;
    long[] s = new long[r + 1];
    long[][] b = new long[r + 1][];
    int[] grid = m.gridSizes();
    int[] ng = new int[r + 1];
    for (int e = 0, o = 0; e < r; e++, o++) {
      if (e == d) {
        s[o] = n1;
        b[o] = outerB;
        ng[o] = outerB.length - 1;
        o++;
        s[o] = n2;
        b[o] = innerB;
        ng[o] = innerB.length - 1;
      } else {
        s[o] = shape[e];
        b[o] = m.allBounds()[e];
        ng[o] = grid[e];
      }
    }
    long total = 1;
    for (int k : ng) {
      total *= k;
    }
    if (total > BlockMap.MAX_CELLS) {
      return null;
    }
    Cell[] out = new Cell[(int) total];
    int[] g = new int[r + 1];
    int[] og = new int[r];
    for (int k = 0; k < out.length; k++) {
      BlockMap.unflatten(k, ng, g);
      for (int e = 0, o = 0; e < r; e++, o++) {
        if (e == d) {
          long at = outerB[g[o]] * n2 + innerB[g[o + 1]];
          int j = Arrays.binarySearch(bd, at);
          og[e] = j >= 0 ? j : -j - 2;
          o++;
        } else {
          og[e] = g[o];
        }
      }
      Cell c = m.cell(BlockMap.flatten(og, grid));
      long[] st = new long[r + 1];
      for (int e = 0, o = 0; e < r; e++, o++) {
        if (e == d) {
          st[o++] = c.stride(e) * n2;
        }
        st[o] = c.stride(e);
      }
      out[k] = c.with(c.base(), st);
    }
    return BlockMap.of(s, b, out);
  }

  /** Dims d and d+1 as one dim (d+1 the faster); null when the boxes would be too many. */
  private static BlockMap merge(BlockMap m, int d) {
    long[] shape = m.shape();
    int r = shape.length;
    long na = shape[d];
    long nb = shape[d + 1];
    long[] ba = m.bounds(d);
    long[] bb = m.bounds(d + 1);
    int[] grid = m.gridSizes();
    boolean whole = bb.length == 2;
    int[] at = new int[r];
    for (int k = 0; k < m.cellCount() && whole; k++) {
      Cell c = m.cell(k);
      BlockMap.unflatten(k, grid, at);
      boolean oneRow = ba[at[d] + 1] - ba[at[d]] == 1;
      whole = oneRow || c.stride(d) == c.stride(d + 1) * nb;
    }
    long[] units = new long[(int) na + 1];
    for (int a = 0; a <= na; a++) {
      units[a] = a;
    }
    long[] rows = whole ? ba : units;
    if (!whole) {
      long total = (long) (m.cellCount() / grid[d]) * na;
      if (total > BlockMap.MAX_CELLS) {
        return null;
      }
    }
    List<Long> merged = new ArrayList<>();
    for (int a = 0; a < rows.length - 1; a++) {
      for (int j = 0; j < bb.length - 1; j++) {
        merged.add(rows[a] * nb + bb[j]);
      }
    }
    merged.add(na * nb);
    long[] s = new long[r - 1];
    long[][] b = new long[r - 1][];
    int[] ng = new int[r - 1];
    for (int e = 0, o = 0; e < r; e++, o++) {
      if (e == d) {
        s[o] = na * nb;
        b[o] = Longs.of(merged);
        ng[o] = b[o].length - 1;
        e++;
      } else {
        s[o] = shape[e];
        b[o] = m.allBounds()[e];
        ng[o] = grid[e];
      }
    }
    Cell[] out = new Cell[BlockMap.count(ng)];
    int[] g = new int[r - 1];
    int[] og = new int[r];
    for (int k = 0; k < out.length; k++) {
      BlockMap.unflatten(k, ng, g);
      int row = g[d] / (bb.length - 1);
      int col = g[d] % (bb.length - 1);
      for (int e = 0, o = 0; e < r; e++, o++) {
        if (e == d) {
          long a = rows[row];
          int j = Arrays.binarySearch(ba, a);
          og[e] = j >= 0 ? j : -j - 2;
          og[e + 1] = col;
          e++;
        } else {
          og[e] = g[o];
        }
      }
      Cell c = m.cell(BlockMap.flatten(og, grid));
      long a = rows[row];
      long sa = c.stride(d);
      long sb = c.stride(d + 1);
      long[] st = new long[r - 1];
      for (int e = 0, o = 0; e < r; e++, o++) {
        if (e == d) {
          st[o] = sb;
          e++;
        } else {
          st[o] = c.stride(e);
        }
      }
      // element (i_a, i_b) with j = i_a·nb + i_b: base + sa·i_a + sb·i_b
      long base = whole && sa == sb * nb ? c.base() : c.base() + sa * a - sb * a * nb;
      out[k] = c.with(base, st);
    }
    return BlockMap.of(s, b, out);
  }
}
