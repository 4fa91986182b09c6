package dev.entangle.rules.layout;

import java.util.Arrays;
import java.util.List;

/**
 * Small operations on arrays of longs (cut positions, sizes), written as plain loops: block maps
 * are computed on every search of a check's first operators, before the JIT has compiled anything,
 * where a stream pipeline costs many times its loop.
 */
final class Longs {
  private Longs() {}

  static long[] of(List<Long> values) {
    long[] out = new long[values.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = values.get(i);
    }
    return out;
  }

  /** The values, ascending, each once. */
  static long[] sortedDistinct(long[] values) {
    long[] s = values.clone();
    Arrays.sort(s);
    int n = 0;
    for (int i = 0; i < s.length; i++) {
      if (n == 0 || s[n - 1] != s[i]) {
        s[n++] = s[i];
      }
    }
    return n == s.length ? s : Arrays.copyOf(s, n);
  }

  /** The values of every array, ascending, each once. */
  static long[] union(List<long[]> arrays) {
    int total = 0;
    for (long[] a : arrays) {
      total += a.length;
    }
    long[] all = new long[total];
    int at = 0;
    for (long[] a : arrays) {
      System.arraycopy(a, 0, all, at, a.length);
      at += a.length;
    }
    return sortedDistinct(all);
  }

  /** The values other than 1, in order. */
  static long[] withoutOnes(long[] values) {
    int n = 0;
    long[] out = new long[values.length];
    for (long v : values) {
      if (v != 1) {
        out[n++] = v;
      }
    }
    return n == out.length ? out : Arrays.copyOf(out, n);
  }
}
