package dev.entangle.rules;

import dev.entangle.core.Op;
import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;
import java.util.Arrays;
import java.util.List;

/**
 * Evaluates a rule's expressions against one match. Values are {@code Long} (integers and
 * booleans), {@code long[]} (integer lists), {@code Integer} (an e-class) and {@code int[]} (a list
 * of e-classes). Inside {@code all}, {@code any} and mapped templates a list of e-classes stands
 * for its element at the current index. Anything that does not apply throws {@link NoMatch}. The
 * functions themselves are the table {@link Fn}.
 */
final class Evaluator {
  private final EGraph<TypeInfo> g;

  Evaluator(EGraph<TypeInfo> g) {
    this.g = g;
  }

  long integer(Calc c, Object[] b, int index) {
    Object v = eval(c, b, index);
    if (v instanceof Long l) {
      return l;
    }
    throw NoMatch.INSTANCE;
  }

  long[] list(Calc c, Object[] b, int index) {
    Object v = eval(c, b, index);
    if (v instanceof long[] l) {
      return l;
    }
    if (v instanceof Long l) {
      return new long[] {l};
    }
    throw NoMatch.INSTANCE;
  }

  boolean truth(Calc c, Object[] b) {
    return integer(c, b, -1) != 0;
  }

  Object eval(Calc c, Object[] b, int index) {
    if (c instanceof Calc.Lit l) {
      return l.value();
    }
    if (c instanceof Calc.Ref r) {
      Object v = b[r.slot()];
      if (v instanceof int[] cl && index >= 0) {
        if (index >= cl.length) {
          throw NoMatch.INSTANCE;
        }
        return cl[index];
      }
      if (v == null) {
        throw NoMatch.INSTANCE;
      }
      return v;
    }
    Calc.Apply f = (Calc.Apply) c;
    return f.fn().impl.eval(this, f.args(), b, index);
  }

  /**
   * {@code all} ({@code every}) or {@code any} over the indices of the list variables {@code c}
   * mentions.
   */
  long quantify(Calc c, Object[] b, int index, boolean every) {
    int n = listLength(c, b);
    if (n < 0) {
      return integer(c, b, index) != 0 ? 1L : 0L;
    }
    for (int i = 0; i < n; i++) {
      boolean t = integer(c, b, i) != 0;
      if (every && !t) {
        return 0L;
      }
      if (!every && t) {
        return 1L;
      }
    }
    return every ? 1L : 0L;
  }

  /** The common length of the class lists mentioned in c, or -1 when none. */
  static int listLength(Calc c, Object[] b) {
    if (c instanceof Calc.Ref r && b[r.slot()] instanceof int[] cl) {
      return cl.length;
    }
    if (c instanceof Calc.Apply f) {
      int n = -1;
      for (Calc x : f.args()) {
        int m = listLength(x, b);
        if (m >= 0) {
          if (n >= 0 && n != m) {
            throw NoMatch.INSTANCE;
          }
          n = m;
        }
      }
      return n;
    }
    return -1;
  }

  long dimSize(int cls, long d) {
    long[] s = g.data(cls).shape();
    if (d < 0 || d >= s.length) {
      throw NoMatch.INSTANCE;
    }
    return s[(int) d];
  }

  /** Whether a class holds a node of the operator. */
  boolean holds(Object cls, Op op) {
    return g.holds(cls(cls), op.id());
  }

  /** Whether an integer class is shown to hold no negative element ({@link IdBounds}). */
  boolean nonNegative(Object cls) {
    return IdBounds.nonNegative(g, cls(cls));
  }

  /**
   * Whether every element of class {@code a} is shown below ({@code strictly}) or at most every
   * element of class {@code b} ({@link IdBounds}).
   */
  boolean ordered(Object a, Object b, boolean strictly) {
    return IdBounds.ordered(g, cls(a), cls(b), strictly);
  }

  /**
   * Whether every element of an integer class is shown to lie in {@code [lo, hi)} ({@link
   * IdBounds}).
   */
  boolean within(Object cls, long lo, long hi) {
    double[] b = IdBounds.of(g, cls(cls));
    return b[0] >= lo && b[1] < hi;
  }

  /** Whether every element of class {@code m} is shown to be {@code v} ({@link IdBounds}). */
  boolean always(Object m, double v) {
    return IdBounds.always(g, cls(m), v);
  }

  /** Whether {@code t - c} is shown exact in t's dtype ({@link IdBounds#exactDifference}). */
  boolean exactDifference(Object t, long c) {
    return IdBounds.exactDifference(g, cls(t), c);
  }

  /** A value that must be a class; no match otherwise. */
  private static int cls(Object v) {
    if (!(v instanceof Integer c)) {
      throw NoMatch.INSTANCE;
    }
    return c;
  }

  List<ENode> nodes(int cls) {
    return g.nodes(cls);
  }

  TypeInfo type(Object v) {
    if (v instanceof Integer c) {
      TypeInfo t = g.data(c);
      if (t.isTuple()) {
        throw NoMatch.INSTANCE;
      }
      return t;
    }
    throw NoMatch.INSTANCE;
  }

  static int[] classes(Object[] b, Calc arg) {
    if (arg instanceof Calc.Ref r && b[r.slot()] instanceof int[] cl) {
      return cl;
    }
    throw NoMatch.INSTANCE;
  }

  static long num(Object v) {
    if (v instanceof Long l) {
      return l;
    }
    throw NoMatch.INSTANCE;
  }

  static long[] lst(Object v) {
    if (v instanceof long[] l) {
      return l;
    }
    throw NoMatch.INSTANCE;
  }

  /** Equal integers, equal lists, or tensors of one e-class. */
  boolean same(Object a, Object b) {
    if (a instanceof long[] x && b instanceof long[] y) {
      return Arrays.equals(x, y);
    }
    if (a instanceof Integer x && b instanceof Integer y) {
      return g.find(x) == g.find(y);
    }
    if (a instanceof Long x && b instanceof Long y) {
      return x.longValue() == y.longValue();
    }
    throw NoMatch.INSTANCE;
  }
}
