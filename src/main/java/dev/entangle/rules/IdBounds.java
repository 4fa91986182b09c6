package dev.entangle.rules;

import dev.entangle.core.Dtype;
import dev.entangle.core.Op;
import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * Bounds on the elements of an integer or bool e-class, from how it is built: the interval every
 * element lies in. A known number is its own bound; a bool lies in [0, 1] and an unsigned integer
 * is at least 0; positions ({@code arange}) run from their start to their last step; an {@code
 * argmax} is at least 0; views, slices and broadcasts keep their input's bound and a concat takes
 * the hull of its parts'; sums, differences, negations, products, maxima and minima (a clamp, such
 * as the one a relation's {@code in_range} states a tensor equal to) combine their operands'
 * bounds; a {@code where} takes the hull of its branches', where a vocabulary shard's shifted ids
 * {@code where(mask, k, t - c)} are at least {@code L - c} when the mask holds wherever {@code t <
 * L}. A class's bound is the tightest its nodes give.
 *
 * <p>Lemmas use it to decide comparisons of ids with constants and to read advanced indexing as a
 * pick ({@code nonneg}), so it must never give a bound that does not hold: it looks a few levels
 * deep, gives no bound for floats, and none where a bound leaves the range a double holds exactly.
 */
final class IdBounds {
  /** How many levels below the class asked about are read. */
  private static final int DEPTH = 5;

  /**
   * How many child steps below the class it is asked about {@link #of} reads at most: {@link
   * #DEPTH} levels, and below a {@code where}'s shifted branch its constant and {@link #DEPTH}
   * levels of its mask with a comparison's constant.
   */
  static final int READS_BELOW = 2 * DEPTH + 3;

  /** Beyond this a double does not hold every integer: no bound is given past it. */
  private static final double EXACT = 0x1p53;

  private static final double[] NONE = {Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY};

  /**
   * Bounds found in one e-graph by class and depth left, while it stays the same ({@link
   * EGraph#stamp}): classes are met again along many paths, and a search asks about the masks of
   * many matches. It holds no reference to its e-graph, which keys it weakly ({@link #KNOWN}).
   */
  private static final class Known {
    long stamp = -1;
    final Map<Long, double[]> bounds = new HashMap<>();
  }

  /** What is known of each e-graph (each is used by one thread at a time). */
  private static final Map<EGraph<TypeInfo>, Known> KNOWN =
      Collections.synchronizedMap(new WeakHashMap<>());

  private final EGraph<TypeInfo> g;
  private final Map<Long, double[]> known;

  private IdBounds(EGraph<TypeInfo> g, Map<Long, double[]> known) {
    this.g = g;
    this.known = known;
  }

  /** A query of {@code g}, with the bounds found so far while the e-graph is unchanged. */
  private static IdBounds in(EGraph<TypeInfo> g) {
    Known k = KNOWN.computeIfAbsent(g, x -> new Known());
    if (k.stamp != g.stamp()) {
      k.bounds.clear();
      k.stamp = g.stamp();
    }
    return new IdBounds(g, k.bounds);
  }

  /** The least and the largest value an element of the class may take, {@code [lo, hi]}. */
  static double[] of(EGraph<TypeInfo> g, int cls) {
    return in(g).of(cls, DEPTH);
  }

  /** Whether every element of the class is at least 0. */
  static boolean nonNegative(EGraph<TypeInfo> g, int cls) {
    return of(g, cls)[0] >= 0;
  }

  /**
   * Whether every element of {@code a} is shown below ({@code strictly}) or at most every element
   * of {@code b}.
   */
  static boolean ordered(EGraph<TypeInfo> g, int a, int b, boolean strictly) {
    IdBounds q = in(g);
    double most = q.of(a, DEPTH)[1];
    double least = q.of(b, DEPTH)[0];
    return strictly ? most < least : most <= least;
  }

  /**
   * Whether {@code t - c}, computed in t's dtype, is the exact difference for every element: t's
   * bounds are finite, and so are theirs less c within the dtype (no element wraps around).
   */
  static boolean exactDifference(EGraph<TypeInfo> g, int t, long c) {
    double[] b = of(g, t);
    if (b[0] == Double.NEGATIVE_INFINITY || b[1] == Double.POSITIVE_INFINITY) {
      return false;
    }
    return fits(Dtype.of(g.data(t).dtype()), new double[] {b[0] - c, b[1] - c});
  }

  /** Whether every element of the integer or bool class is shown to be {@code v}. */
  static boolean always(EGraph<TypeInfo> g, int cls, double v) {
    double[] b = of(g, cls);
    return b[0] == v && b[1] == v;
  }

  private double[] of(int cls, int depth) {
    long key = ((long) g.find(cls) << 8) | depth;
    double[] b = known.get(key);
    if (b == null) {
      b = bounds(cls, depth);
      known.put(key, b);
    }
    return b;
  }

  private double[] bounds(int cls, int depth) {
    TypeInfo t = g.data(cls);
    if (t.isTuple()) {
      return NONE;
    }
    Dtype dt = Dtype.of(t.dtype());
    boolean integral = dt.isIntegral() || unsigned(dt);
    if (!integral) {
      return NONE;
    }
    if (t.constant() != null) {
      double c = t.constant();
      return new double[] {c, c};
    }
    double[] best = dtypeBounds(dt);
    if (depth == 0) {
      return best;
    }
    for (ENode n : g.nodes(cls)) {
      double[] b = node(n, dt, depth - 1);
      best = new double[] {Math.max(best[0], b[0]), Math.min(best[1], b[1])};
    }
    return best;
  }

  private static boolean unsigned(Dtype dt) {
    return dt == Dtype.BOOL
        || dt == Dtype.UINT8
        || dt == Dtype.UINT16
        || dt == Dtype.UINT32
        || dt == Dtype.UINT64;
  }

  private static double[] dtypeBounds(Dtype dt) {
    if (dt == Dtype.BOOL) {
      return new double[] {0, 1};
    }
    return unsigned(dt) ? new double[] {0, Double.POSITIVE_INFINITY} : NONE;
  }

  /**
   * The bound of an arithmetic result, when it is finite and the dtype holds every value in it;
   * else the dtype's own: the operation may have wrapped around (or, on bools, be logical), as it
   * may past what a double holds exactly.
   */
  private static double[] held(Dtype dt, double[] b) {
    return fits(dt, b) ? b : dtypeBounds(dt);
  }

  /** Whether the dtype holds every value of the bound exactly (as a double holds it too). */
  private static boolean fits(Dtype dt, double[] b) {
    double width =
        switch (dt) {
          case BOOL -> 2;
          case INT8, UINT8 -> 0x1p8;
          case INT16, UINT16 -> 0x1p16;
          case INT32, UINT32 -> 0x1p32;
          default -> 0x1p64;
        };
    double least = unsigned(dt) ? 0 : -width / 2;
    double most = Math.min(least + width - 1, EXACT);
    return b[0] >= least && b[1] <= most;
  }

  private double[] node(ENode n, Dtype dt, int depth) {
    Op op = Op.of(n.op());
    if (op == null) {
      return NONE;
    }
    return switch (op) {
      case ADD, SUMN, SUB, NEG, MUL -> held(dt, arithmetic(n, op, depth));
      default -> elements(n, op, dt, depth);
    };
  }

  /** The bound of a sum, difference, negation or product, as if computed exactly. */
  private double[] arithmetic(ENode n, Op op, int depth) {
    return switch (op) {
      case ADD, SUMN -> sum(n, depth);
      case SUB -> {
        double[] a = of(n.child(0), depth);
        double[] b = of(n.child(1), depth);
        yield new double[] {a[0] - b[1], a[1] - b[0]};
      }
      case NEG -> {
        double[] a = of(n.child(0), depth);
        yield new double[] {-a[1], -a[0]};
      }
      default -> product(of(n.child(0), depth), of(n.child(1), depth));
    };
  }

  /**
   * The bound of an operation whose elements are elements of its operands, positions, or the
   * outcome of a comparison or of logic on masks.
   */
  private double[] elements(ENode n, Op op, Dtype dt, int depth) {
    return switch (op) {
      case ARANGE -> arange(n);
      case ARGMAX, TOPK_INDICES -> new double[] {0, Double.POSITIVE_INFINITY};
      case RESHAPE, EXPAND, PERMUTE, SLICE -> of(n.child(0), depth);
      case CONCAT -> hull(n, depth);
      case MAXIMUM, MAXN -> extreme(n, depth, true);
      case MINIMUM, MINN -> extreme(n, depth, false);
      case RAMAX, RAMIN -> empty(n.child(0)) ? NONE : of(n.child(0), depth);
      case WHERE -> where(n, depth);
      case LT, LE, GT, GE -> comparison(n, op, depth);
      case AND, OR, NOT -> dt == Dtype.BOOL ? logical(n, op, depth) : NONE; // on ints: bitwise
      default -> NONE;
    };
  }

  /** The bound of a logical and (the least operand), or (the largest) or not of bool masks. */
  private double[] logical(ENode n, Op op, int depth) {
    return switch (op) {
      case AND -> extreme(n, depth, false);
      case OR -> extreme(n, depth, true);
      default -> {
        double[] a = of(n.child(0), depth);
        yield a[0] >= 0 && a[1] <= 1 ? new double[] {1 - a[1], 1 - a[0]} : new double[] {0, 1};
      }
    };
  }

  /** Whether the class has no element (a reduction over it gives its identity, not an element). */
  private boolean empty(int cls) {
    for (long d : g.data(cls).shape()) {
      if (d == 0) {
        return true;
      }
    }
    return false;
  }

  /** A comparison the operands' bounds decide is 1 or 0 everywhere; else it is a bool. */
  private double[] comparison(ENode n, Op op, int depth) {
    double[] a = of(n.child(0), depth);
    double[] b = of(n.child(1), depth);
    boolean yes =
        switch (op) {
          case LT -> a[1] < b[0];
          case LE -> a[1] <= b[0];
          case GT -> a[0] > b[1];
          default -> a[0] >= b[1];
        };
    boolean no =
        switch (op) {
          case LT -> a[0] >= b[1];
          case LE -> a[0] > b[1];
          case GT -> a[1] <= b[0];
          default -> a[1] < b[0];
        };
    return yes ? new double[] {1, 1} : no ? new double[] {0, 0} : new double[] {0, 1};
  }

  private static double[] arange(ENode n) {
    long start = n.attr(0);
    long end = n.attr(1);
    long step = n.attr(2);
    if (step == 0 || (end - start) / (double) step <= 0) {
      return NONE;
    }
    long count = (end - start + step + (step > 0 ? -1 : 1)) / step;
    double last = start + (double) (count - 1) * step;
    return new double[] {Math.min(start, last), Math.max(start, last)};
  }

  private double[] hull(ENode n, int depth) {
    double lo = Double.POSITIVE_INFINITY;
    double hi = Double.NEGATIVE_INFINITY;
    for (int i = 0; i < n.arity(); i++) {
      double[] b = of(n.child(i), depth);
      lo = Math.min(lo, b[0]);
      hi = Math.max(hi, b[1]);
    }
    return new double[] {lo, hi};
  }

  private double[] sum(ENode n, int depth) {
    double lo = 0;
    double hi = 0;
    for (int i = 0; i < n.arity(); i++) {
      double[] b = of(n.child(i), depth);
      lo += b[0];
      hi += b[1];
    }
    return new double[] {
      Double.isNaN(lo) ? Double.NEGATIVE_INFINITY : lo,
      Double.isNaN(hi) ? Double.POSITIVE_INFINITY : hi
    };
  }

  private static double[] product(double[] a, double[] b) {
    double lo = Double.POSITIVE_INFINITY;
    double hi = Double.NEGATIVE_INFINITY;
    for (double x : a) {
      for (double y : b) {
        double p = x * y;
        if (Double.isNaN(p)) {
          return NONE; // 0 times an unbounded side
        }
        lo = Math.min(lo, p);
        hi = Math.max(hi, p);
      }
    }
    return new double[] {lo, hi};
  }

  /** The bound of a maximum ({@code max}) or minimum of the operands. */
  private double[] extreme(ENode n, int depth, boolean max) {
    double lo = max ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
    double hi = lo;
    for (int i = 0; i < n.arity(); i++) {
      double[] b = of(n.child(i), depth);
      lo = max ? Math.max(lo, b[0]) : Math.min(lo, b[0]);
      hi = max ? Math.max(hi, b[1]) : Math.min(hi, b[1]);
    }
    return new double[] {lo, hi};
  }

  /**
   * The hull of a {@code where}'s branches; the else branch {@code t - c}, where the mask holds
   * wherever {@code t < L}, is at least {@code L - c} there.
   */
  private double[] where(ENode where, int depth) {
    double[] then = of(where.child(1), depth);
    double[] otherwise = of(where.child(2), depth);
    double shifted = shiftedLow(where);
    return new double[] {
      Math.min(then[0], Math.max(otherwise[0], shifted)), Math.max(then[1], otherwise[1])
    };
  }

  /**
   * For {@code where(mask, _, t - c)} with the mask true wherever {@code t < L} and {@code 0 <= c
   * <= L}: {@code L - c}, the least the else branch takes where it is chosen; negative infinity
   * when no such form is found.
   */
  private double shiftedLow(ENode where) {
    double best = Double.NEGATIVE_INFINITY;
    for (ENode shifted : g.nodes(where.child(2))) {
      if (Op.of(shifted.op()) == Op.SUB) {
        Double c = g.data(shifted.child(1)).constant();
        if (c != null && c >= 0) {
          // t >= L there, and L >= c: t - c lies in [L - c, t], which no dtype wraps
          int t = g.find(shifted.child(0));
          double below = coveredBelow(where.child(0), t, DEPTH);
          if (below >= c) {
            best = Math.max(best, below - c);
          }
        }
      }
    }
    return best;
  }

  /**
   * The largest L found such that the bool class is true wherever the ids t are below L; negative
   * infinity when none is: t's {@code out_of_range[lo hi]} or {@code t < lo}, an "or" of such
   * masks, or an "and" of masks that all are.
   */
  private double coveredBelow(int mask, int t, int depth) {
    double best = Double.NEGATIVE_INFINITY;
    for (ENode n : g.nodes(mask)) {
      Op op = Op.of(n.op());
      double bound = Double.NEGATIVE_INFINITY;
      if (op == Op.OUT_OF_RANGE && g.find(n.child(0)) == t) {
        bound = n.attr(0);
      } else if (op == Op.LT && g.find(n.child(0)) == t) {
        Double c = g.data(n.child(1)).constant();
        bound = c != null ? c : bound;
      } else if (depth > 0 && (op == Op.OR || op == Op.MAXN)) {
        for (int i = 0; i < n.arity(); i++) {
          bound = Math.max(bound, coveredBelow(n.child(i), t, depth - 1));
        }
      } else if (depth > 0 && (op == Op.AND || op == Op.MINN)) {
        bound = Double.POSITIVE_INFINITY;
        for (int i = 0; i < n.arity(); i++) {
          bound = Math.min(bound, coveredBelow(n.child(i), t, depth - 1));
        }
      }
      best = Math.max(best, bound);
    }
    return best;
  }
}
