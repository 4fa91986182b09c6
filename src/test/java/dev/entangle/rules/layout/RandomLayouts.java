package dev.entangle.rules.layout;

import static dev.entangle.rules.layout.LayoutTerm.concat;
import static dev.entangle.rules.layout.LayoutTerm.expand;
import static dev.entangle.rules.layout.LayoutTerm.permute;
import static dev.entangle.rules.layout.LayoutTerm.reshape;
import static dev.entangle.rules.layout.LayoutTerm.slice;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/** Random compositions of layout operators over given leaves, for the law matrices. */
final class RandomLayouts {
  private static final long MAX_ELEMENTS = 4096;

  private final Random random;
  private final List<LayoutTerm> leaves;

  RandomLayouts(long seed, List<LayoutTerm> leaves) {
    this.random = new Random(seed);
    this.leaves = leaves;
  }

  LayoutTerm term(int depth) {
    LayoutTerm t = leaves.get(random.nextInt(leaves.size()));
    for (int i = 0; i < depth; i++) {
      t = step(t);
    }
    return t;
  }

  /** One random layout operator applied to t (t itself when the drawn one does not apply). */
  LayoutTerm step(LayoutTerm t) {
    long[] s = t.shape();
    int r = s.length;
    switch (random.nextInt(6)) {
      case 0 -> {
        int d = random.nextInt(r);
        if (s[d] < 2) {
          return t;
        }
        long start = random.nextInt((int) s[d] - 1);
        long end = start + 1 + random.nextInt((int) (s[d] - start));
        return slice(t, d, start, end, 1 + random.nextInt(3));
      }
      case 1 -> {
        int d = random.nextInt(r);
        return tiles(t, d, random.nextBoolean());
      }
      case 2 -> {
        return reshape(t, regroup(s));
      }
      case 3 -> {
        List<Long> p = new ArrayList<>();
        for (long i = 0; i < r; i++) {
          p.add(i);
        }
        Collections.shuffle(p, random);
        return permute(t, p.stream().mapToLong(Long::longValue).toArray());
      }
      case 4 -> {
        if (numel(s) * 2 > MAX_ELEMENTS || r >= 5) {
          return t;
        }
        long[] e = new long[r + 1];
        e[0] = 2;
        System.arraycopy(s, 0, e, 1, r);
        return expand(t, e);
      }
      default -> {
        int d = random.nextInt(r);
        if (numel(s) * 2 > MAX_ELEMENTS) {
          return t;
        }
        return concat(List.of(t, t), d);
      }
    }
  }

  /** t cut along d at random points, the pieces concatenated again (reversed when asked). */
  LayoutTerm tiles(LayoutTerm t, int d, boolean reversed) {
    long n = t.shape()[d];
    List<LayoutTerm> pieces = new ArrayList<>();
    long at = 0;
    while (at < n) {
      long len = 1 + random.nextInt((int) Math.min(n - at, 3));
      pieces.add(slice(t, d, at, at + len));
      at += len;
    }
    if (reversed) {
      Collections.reverse(pieces);
    }
    return concat(pieces, d);
  }

  /** Another shape of the same elements: a dim split, two dims merged, or flattened. */
  long[] regroup(long[] s) {
    int r = s.length;
    int choice = random.nextInt(3);
    if (choice == 0 && r >= 2) {
      int d = random.nextInt(r - 1);
      long[] out = new long[r - 1];
      for (int i = 0, o = 0; i < r; i++, o++) {
        out[o] = i == d ? s[i] * s[++i] : s[i];
      }
      return out;
    }
    if (choice == 1) {
      int d = random.nextInt(r);
      List<Long> divisors = new ArrayList<>();
      for (long k = 1; k <= s[d]; k++) {
        if (s[d] % k == 0) {
          divisors.add(k);
        }
      }
      long k = divisors.get(random.nextInt(divisors.size()));
      long[] out = new long[r + 1];
      for (int i = 0, o = 0; i < r; i++, o++) {
        if (i == d) {
          out[o++] = k;
          out[o] = s[i] / k;
        } else {
          out[o] = s[i];
        }
      }
      return out;
    }
    return new long[] {numel(s)};
  }

  static long numel(long[] s) {
    long n = 1;
    for (long v : s) {
      n *= v;
    }
    return n;
  }
}
