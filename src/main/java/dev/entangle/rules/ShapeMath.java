package dev.entangle.rules;

/** Shape arithmetic behind the rule functions {@code reshape-dim}, {@code broadcast-dim} and friends. */
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
}
