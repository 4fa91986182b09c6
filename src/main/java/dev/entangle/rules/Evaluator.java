package dev.entangle.rules;

import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;
import dev.entangle.ops.Op;
import dev.entangle.ops.TypeInfo;
import java.util.Arrays;

/**
 * Evaluates a rule's expressions against one match. Values are {@code Long} (integers and
 * booleans), {@code long[]} (integer lists), {@code Integer} (an e-class) and {@code int[]} (a list
 * of e-classes). Inside {@code all}, {@code any} and mapped templates a list of e-classes stands for
 * its element at the current index. Anything that does not apply throws {@link NoMatch}.
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
    Calc.Fn f = (Calc.Fn) c;
    Calc[] a = f.args();
    switch (f.name()) {
      case "all", "any" -> {
        int n = listLength(a[0], b);
        boolean all = f.name().equals("all");
        if (n < 0) {
          return integer(a[0], b, index) != 0 ? 1L : 0L;
        }
        for (int i = 0; i < n; i++) {
          boolean t = integer(a[0], b, i) != 0;
          if (all && !t) {
            return 0L;
          }
          if (!all && t) {
            return 1L;
          }
        }
        return all ? 1L : 0L;
      }
      case "and" -> {
        for (Calc x : a) {
          if (integer(x, b, index) == 0) {
            return 0L;
          }
        }
        return 1L;
      }
      case "or" -> {
        for (Calc x : a) {
          if (integer(x, b, index) != 0) {
            return 1L;
          }
        }
        return 0L;
      }
      case "index" -> {
        if (index < 0) {
          throw NoMatch.INSTANCE;
        }
        return (long) index;
      }
      default -> {
        Object[] v = new Object[a.length];
        for (int i = 0; i < a.length; i++) {
          v[i] = eval(a[i], b, index);
        }
        return apply(f.name(), v, b, a, index);
      }
    }
  }

  /** The common length of the class lists mentioned in c, or -1 when none. */
  static int listLength(Calc c, Object[] b) {
    if (c instanceof Calc.Ref r && b[r.slot()] instanceof int[] cl) {
      return cl.length;
    }
    if (c instanceof Calc.Fn f) {
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

  private Object apply(String fn, Object[] v, Object[] b, Calc[] args, int index) {
    switch (fn) {
      case "+": {
        long s = 0;
        for (Object x : v) {
          s = Math.addExact(s, num(x));
        }
        return s;
      }
      case "-":
        return v.length == 1 ? -num(v[0]) : num(v[0]) - num(v[1]);
      case "*": {
        long s = 1;
        for (Object x : v) {
          s = Math.multiplyExact(s, num(x));
        }
        return s;
      }
      case "/": {
        long d = num(v[1]);
        if (d == 0 || num(v[0]) % d != 0) {
          throw NoMatch.INSTANCE;
        }
        return num(v[0]) / d;
      }
      case "div": {
        long d = num(v[1]);
        if (d == 0) {
          throw NoMatch.INSTANCE;
        }
        return Math.floorDiv(num(v[0]), d);
      }
      case "%": {
        long d = num(v[1]);
        if (d == 0) {
          throw NoMatch.INSTANCE;
        }
        return Math.floorMod(num(v[0]), d);
      }
      case "min":
      case "max": {
        long s = num(v[0]);
        for (Object x : v) {
          s = fn.equals("min") ? Math.min(s, num(x)) : Math.max(s, num(x));
        }
        return s;
      }
      case "=":
        return same(v[0], v[1]) ? 1L : 0L;
      case "!=":
        return same(v[0], v[1]) ? 0L : 1L;
      case "<":
        return num(v[0]) < num(v[1]) ? 1L : 0L;
      case "<=":
        return num(v[0]) <= num(v[1]) ? 1L : 0L;
      case ">":
        return num(v[0]) > num(v[1]) ? 1L : 0L;
      case ">=":
        return num(v[0]) >= num(v[1]) ? 1L : 0L;
      case "not":
        return num(v[0]) == 0 ? 1L : 0L;
      case "size": {
        long[] s = type(v[0]).shape();
        long d = num(v[1]);
        if (d < 0 || d >= s.length) {
          throw NoMatch.INSTANCE;
        }
        return s[(int) d];
      }
      case "rank":
        return (long) type(v[0]).shape().length;
      case "numel":
        return type(v[0]).numel();
      case "dtype":
        return (long) type(v[0]).dtype();
      case "shape":
        return type(v[0]).shape().clone();
      case "is-const": {
        Double k = type(v[0]).constant();
        return k != null && k == (double) num(v[1]) ? 1L : 0L;
      }
      case "count": {
        Object x = b[((Calc.Ref) args[0]).slot()];
        if (x instanceof int[] cl) {
          return (long) cl.length;
        }
        throw NoMatch.INSTANCE;
      }
      case "len":
        return (long) lst(v[0]).length;
      case "nth": {
        long[] l = lst(v[0]);
        long i = num(v[1]);
        if (i < 0 || i >= l.length) {
          throw NoMatch.INSTANCE;
        }
        return l[(int) i];
      }
      case "set": {
        long[] l = lst(v[0]).clone();
        int i = checkIndex(num(v[1]), l.length);
        l[i] = num(v[2]);
        return l;
      }
      case "insert": {
        long[] l = lst(v[0]);
        int i = checkIndex(num(v[1]), l.length + 1);
        long[] out = new long[l.length + 1];
        System.arraycopy(l, 0, out, 0, i);
        out[i] = num(v[2]);
        System.arraycopy(l, i, out, i + 1, l.length - i);
        return out;
      }
      case "remove": {
        long[] l = lst(v[0]);
        int i = checkIndex(num(v[1]), l.length);
        long[] out = new long[l.length - 1];
        System.arraycopy(l, 0, out, 0, i);
        System.arraycopy(l, i + 1, out, i, l.length - i - 1);
        return out;
      }
      case "sublist": {
        long[] l = lst(v[0]);
        long a = num(v[1]);
        long e = num(v[2]);
        if (a < 0 || e > l.length || a > e) {
          throw NoMatch.INSTANCE;
        }
        return Arrays.copyOfRange(l, (int) a, (int) e);
      }
      case "append": {
        long[] out = new long[0];
        for (Object x : v) {
          long[] l = lst(x);
          long[] n = Arrays.copyOf(out, out.length + l.length);
          System.arraycopy(l, 0, n, out.length, l.length);
          out = n;
        }
        return out;
      }
      case "list": {
        long[] out = new long[v.length];
        for (int i = 0; i < v.length; i++) {
          out[i] = num(v[i]);
        }
        return out;
      }
      case "iota": {
        long n = num(v[0]);
        if (n < 0 || n > 64) {
          throw NoMatch.INSTANCE;
        }
        long[] out = new long[(int) n];
        for (int i = 0; i < n; i++) {
          out[i] = i;
        }
        return out;
      }
      case "prod": {
        long[] l = lst(v[0]);
        long a = v.length > 1 ? num(v[1]) : 0;
        long e = v.length > 2 ? num(v[2]) : l.length;
        if (a < 0 || e > l.length || a > e) {
          throw NoMatch.INSTANCE;
        }
        long p = 1;
        for (int i = (int) a; i < e; i++) {
          p = Math.multiplyExact(p, l[i]);
        }
        return p;
      }
      case "index-of": {
        long[] l = lst(v[0]);
        long x = num(v[1]);
        for (int i = 0; i < l.length; i++) {
          if (l[i] == x) {
            return (long) i;
          }
        }
        throw NoMatch.INSTANCE;
      }
      case "sum-size": {
        int[] cl = classes(b, args[0]);
        long d = num(v[1]);
        long s = 0;
        for (int c : cl) {
          s += dimSize(c, d);
        }
        return s;
      }
      case "offset": {
        int[] cl = classes(b, args[0]);
        if (index < 0 || index > cl.length) {
          throw NoMatch.INSTANCE;
        }
        long d = num(v[1]);
        long s = 0;
        for (int i = 0; i < index; i++) {
          s += dimSize(cl[i], d);
        }
        return s;
      }
      case "fdiv": {
        long d = num(v[1]);
        if (d == 0) {
          throw NoMatch.INSTANCE;
        }
        return Double.doubleToLongBits((double) num(v[0]) / d);
      }
      case "fbits":
        return Double.doubleToLongBits((double) num(v[0]));
      case "reduce-shape":
        return ShapeMath.reduced(lst(v[0]), lst(v[1]), num(v[2]) != 0);
      case "fmul": {
        Double p = Rationals.product(Double.longBitsToDouble(num(v[0])), Double.longBitsToDouble(num(v[1])));
        if (p == null) {
          throw NoMatch.INSTANCE;
        }
        return Double.doubleToLongBits(p);
      }
      case "frecip": {
        Double r = Rationals.reciprocal(Double.longBitsToDouble(num(v[0])));
        if (r == null) {
          throw NoMatch.INSTANCE;
        }
        return Double.doubleToLongBits(r);
      }
      case "is-constant":
        return type(v[0]).constant() != null ? 1L : 0L;
      case "const": {
        Double k = type(v[0]).constant();
        if (k == null) {
          throw NoMatch.INSTANCE;
        }
        return Double.doubleToLongBits(k);
      }
      case "broadcast-dim":
        return ShapeMath.broadcastsAlong(type(v[0]).shape(), lst(v[1]), num(v[2])) ? 1L : 0L;
      case "reshape-dim":
        return (long) ShapeMath.reshapeDim(lst(v[0]), lst(v[1]), num(v[2]));
      case "reshape-piece":
        return ShapeMath.reshapePiece(lst(v[0]), lst(v[1]), num(v[2]), num(v[3]));
      case "permute-inverse":
        return ShapeMath.inverse(lst(v[0]));
      case "permute-compose":
        return ShapeMath.compose(lst(v[0]), lst(v[1]));
      case "head": {
        int[] cl = classes(b, args[0]);
        if (cl.length == 0) {
          throw NoMatch.INSTANCE;
        }
        return cl[0];
      }
      case "contains": {
        long x = num(v[1]);
        for (long e : lst(v[0])) {
          if (e == x) {
            return 1L;
          }
        }
        return 0L;
      }
      case "count-below": {
        long x = num(v[1]);
        long n = 0;
        for (long e : lst(v[0])) {
          if (e < x) {
            n++;
          }
        }
        return n;
      }
      case "ival": {
        double d = Double.longBitsToDouble(num(v[0]));
        if (d != Math.rint(d) || Double.isInfinite(d)) {
          throw NoMatch.INSTANCE;
        }
        return (long) d;
      }
      case "permute-list":
        return ShapeMath.permuteList(lst(v[0]), lst(v[1]));
      case "lift-permute":
        return ShapeMath.liftPermute(lst(v[0]), lst(v[1]), lst(v[2]));
      case "is-concat":
        return holds(v[0], Op.CONCAT) ? 1L : 0L;
      case "is-sumn":
        return holds(v[0], Op.SUMN) ? 1L : 0L;
      case "fits":
        return dev.entangle.ops.Dtype.holdsExactly((long) num(v[1]), num(v[0])) ? 1L : 0L;
      case "is-float":
        return dev.entangle.ops.Dtype.isFloating(type(v[0]).dtype()) ? 1L : 0L;
      case "identity-perm": {
        long[] l = lst(v[0]);
        for (int i = 0; i < l.length; i++) {
          if (l[i] != i) {
            return 0L;
          }
        }
        return 1L;
      }
      default:
        throw new IllegalStateException("function " + fn + " has no evaluation");
    }
  }

  /** Whether the class holds a node of the operator. */
  private boolean holds(Object cls, Op op) {
    if (!(cls instanceof Integer c)) {
      throw NoMatch.INSTANCE;
    }
    for (ENode n : g.nodes(c)) {
      if (n.op() == op.id()) {
        return true;
      }
    }
    return false;
  }

  private long dimSize(int cls, long d) {
    long[] s = g.data(cls).shape();
    if (d < 0 || d >= s.length) {
      throw NoMatch.INSTANCE;
    }
    return s[(int) d];
  }

  private static int[] classes(Object[] b, Calc arg) {
    if (arg instanceof Calc.Ref r && b[r.slot()] instanceof int[] cl) {
      return cl;
    }
    throw NoMatch.INSTANCE;
  }

  private static int checkIndex(long i, int n) {
    if (i < 0 || i >= n) {
      throw NoMatch.INSTANCE;
    }
    return (int) i;
  }

  private TypeInfo type(Object v) {
    if (v instanceof Integer c) {
      TypeInfo t = g.data(c);
      if (t.isTuple()) {
        throw NoMatch.INSTANCE;
      }
      return t;
    }
    throw NoMatch.INSTANCE;
  }

  private static long num(Object v) {
    if (v instanceof Long l) {
      return l;
    }
    throw NoMatch.INSTANCE;
  }

  private static long[] lst(Object v) {
    if (v instanceof long[] l) {
      return l;
    }
    throw NoMatch.INSTANCE;
  }

  private boolean same(Object a, Object b) {
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
