package dev.entangle.core.semantics;

import dev.entangle.core.Op;
import dev.entangle.core.ShapeException;
import dev.entangle.core.TypeInfo;
import java.util.Arrays;

/** The checks that several families' shape rules share. */
final class ShapeChecks {
  private ShapeChecks() {}

  static void sameShapes(Op op, TypeInfo[] c) {
    for (int i = 1; i < c.length; i++) {
      if (!Arrays.equals(c[0].shape(), c[i].shape())) {
        throw new ShapeException(
            op.symbol()
                + " of operands with shapes "
                + Arrays.toString(c[0].shape())
                + " and "
                + Arrays.toString(c[i].shape()));
      }
    }
  }

  static long[] tail(long[] a, int from) {
    return Arrays.copyOfRange(a, from, a.length);
  }

  static void checkDim(TypeInfo x, long d, Op op) {
    if (d < 0 || d >= x.rank()) {
      throw new ShapeException(op.symbol() + " over dim " + d + " of a " + x.rank() + "-d tensor");
    }
  }

  static void checkLastDims(TypeInfo x, long k, Op op) {
    if (k < 1 || k > x.rank()) {
      throw new ShapeException(
          op.symbol() + " over the last " + k + " dims of a " + x.rank() + "-d tensor");
    }
  }

  static long[] reduceShape(TypeInfo x, boolean keep, long[] dims) {
    long[] s = x.shape();
    boolean[] red = new boolean[s.length];
    for (long d : dims) {
      red[(int) d] = true;
    }
    long[] out = new long[s.length];
    int n = 0;
    for (int i = 0; i < s.length; i++) {
      if (!red[i]) {
        out[n++] = s[i];
      } else if (keep) {
        out[n++] = 1;
      }
    }
    return Arrays.copyOf(out, n);
  }
}
