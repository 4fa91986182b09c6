package dev.entangle.rules;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Shape arithmetic behind the rule functions. */
final class ShapeMath {
  private ShapeMath() {}

  /** Whether expanding a tensor of shape {@code x} to {@code shape} repeats it along dim d. */
  static boolean broadcastsAlong(long[] x, long[] shape, long d) {
    int off = shape.length - x.length;
    if (d < 0 || d >= shape.length) {
      throw NoMatch.INSTANCE;
    }
    return d < off || x[(int) d - off] == 1;
  }

  private static long prod(long[] s, int from, int to) {
    long p = 1;
    for (int i = from; i < to; i++) {
      p *= s[i];
    }
    return p;
  }

  /**
   * For a reshape from {@code in} to {@code out}: the dim of {@code out} along which blocks of dim
   * d of {@code in} lie (the same number of rows before it). No match when there is none.
   */
  static int reshapeDim(long[] in, long[] out, long d) {
    if (d < 0 || d >= in.length || prod(in, 0, in.length) != prod(out, 0, out.length)) {
      throw NoMatch.INSTANCE;
    }
    long rows = prod(in, 0, (int) d);
    int best = -1;
    long p = 1;
    for (int k = 0; k < out.length; k++) {
      if (p == rows && (best < 0 || out[k] != 1)) {
        if (best < 0 || out[best] == 1) {
          best = k;
        }
      }
      p *= out[k];
      if (p > rows && best >= 0) {
        break;
      }
    }
    if (best < 0) {
      throw NoMatch.INSTANCE;
    }
    return best;
  }

  /** The reshape target for a block of {@code n} along dim d of {@code in}. */
  static long[] reshapePiece(long[] in, long[] out, long d, long n) {
    int k = reshapeDim(in, out, d);
    long innerIn = prod(in, (int) d + 1, in.length);
    long innerOut = prod(out, k + 1, out.length);
    long elems = n * innerIn;
    if (innerOut == 0 || elems % innerOut != 0) {
      throw NoMatch.INSTANCE;
    }
    long[] r = out.clone();
    r[k] = elems / innerOut;
    return r;
  }

  static long[] inverse(long[] p) {
    long[] inv = new long[p.length];
    for (int i = 0; i < p.length; i++) {
      if (p[i] < 0 || p[i] >= p.length) {
        throw NoMatch.INSTANCE;
      }
      inv[(int) p[i]] = i;
    }
    return inv;
  }

  /** Permuting by p and then by q equals permuting by the result. */
  static long[] compose(long[] p, long[] q) {
    if (p.length != q.length) {
      throw NoMatch.INSTANCE;
    }
    long[] r = new long[p.length];
    for (int i = 0; i < q.length; i++) {
      r[i] = p[(int) q[i]];
    }
    return r;
  }

  /** Element i of the result is {@code l[p[i]]}. */
  static long[] permuteList(long[] l, long[] p) {
    if (l.length != p.length) {
      throw NoMatch.INSTANCE;
    }
    long[] out = new long[p.length];
    for (int i = 0; i < p.length; i++) {
      if (p[i] < 0 || p[i] >= l.length) {
        throw NoMatch.INSTANCE;
      }
      out[i] = l[(int) p[i]];
    }
    return out;
  }

  /**
   * Splits a reshape {@code in -> out} into aligned runs of dims with equal products, e.g. [4, 6,
   * 5] -> [24, 5] gives runs ([0,2) -> [0,1)) and ([2,3) -> [1,2)). Size-1 dims join the run before
   * them. Returns pairs {inStart, inEnd, outStart, outEnd}.
   */
  static List<long[]> runs(long[] in, long[] out) {
    List<long[]> runs = new ArrayList<>();
    int i = 0;
    int j = 0;
    while (i < in.length || j < out.length) {
      int a = i;
      int c = j;
      long pi = 1;
      long po = 1;
      if (i < in.length) {
        pi *= in[i++];
      }
      if (j < out.length) {
        po *= out[j++];
      }
      while (pi != po) {
        if (pi < po && i < in.length) {
          pi *= in[i++];
        } else if (po < pi && j < out.length) {
          po *= out[j++];
        } else {
          throw NoMatch.INSTANCE;
        }
      }
      while (i < in.length && in[i] == 1 && (j >= out.length || out[j] != 1)) {
        i++;
      }
      while (j < out.length && out[j] == 1 && (i >= in.length || in[i] != 1)) {
        j++;
      }
      runs.add(new long[] {a, i, c, j});
    }
    return runs;
  }

  /** See the rule function {@code lift-permute}. */
  static long[] liftPermute(long[] in, long[] out, long[] p) {
    if (p.length != out.length) {
      throw NoMatch.INSTANCE;
    }
    List<long[]> runs = runs(in, out);
    long[] lifted = new long[in.length];
    int n = 0;
    int pos = 0;
    while (pos < p.length) {
      long[] run = null;
      for (long[] r : runs) {
        if (r[2] == p[pos] && r[3] > r[2]) {
          run = r;
        }
      }
      if (run == null) {
        throw NoMatch.INSTANCE;
      }
      for (long k = run[2]; k < run[3]; k++, pos++) {
        if (pos >= p.length || p[pos] != k) {
          throw NoMatch.INSTANCE;
        }
      }
      for (long k = run[0]; k < run[1]; k++) {
        lifted[n++] = k;
      }
    }
    for (long[] r : runs) {
      if (r[3] == r[2]) {
        throw NoMatch.INSTANCE; // a run of input dims that vanishes (all ones): keep it simple
      }
    }
    if (n != in.length) {
      throw NoMatch.INSTANCE;
    }
    return lifted;
  }

  /** {@code shape} reduced over {@code dims}: each kept as a dim of size 1, or removed. */
  /** The shape without its dims of size 1. */
  static long[] withoutUnits(long[] shape) {
    return Arrays.stream(shape).filter(d -> d != 1).toArray();
  }

  static long[] reduced(long[] shape, long[] dims, boolean keep) {
    long[] out = new long[shape.length];
    int n = 0;
    for (int i = 0; i < shape.length; i++) {
      boolean reduced = false;
      for (long d : dims) {
        if (d < 0 || d >= shape.length) {
          throw NoMatch.INSTANCE;
        }
        reduced |= d == i;
      }
      if (!reduced) {
        out[n++] = shape[i];
      } else if (keep) {
        out[n++] = 1;
      }
    }
    return Arrays.copyOf(out, n);
  }
}
