package dev.entangle.rules;

import dev.entangle.core.Dtype;
import dev.entangle.core.Op;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The functions a rule's conditions, lets and computed attributes may call: one table of name,
 * argument counts, whether the result is a list, a line of documentation and the implementation.
 * Values are integers (booleans are 0/1), integer lists, e-classes and lists of e-classes; a
 * function that does not apply (a division that is not exact, an index out of range) throws {@link
 * NoMatch}, which means no rewrite.
 */
enum Fn {
  ADD(
      "+",
      1,
      -1,
      false,
      "sum",
      strict(
          (e, v) -> {
            long s = 0;
            for (Object x : v) {
              s = Math.addExact(s, Evaluator.num(x));
            }
            return s;
          })),
  SUB(
      "-",
      1,
      2,
      false,
      "difference or negation",
      strict(
          (e, v) ->
              v.length == 1 ? -Evaluator.num(v[0]) : Evaluator.num(v[0]) - Evaluator.num(v[1]))),
  MUL(
      "*",
      1,
      -1,
      false,
      "product",
      strict(
          (e, v) -> {
            long s = 1;
            for (Object x : v) {
              s = Math.multiplyExact(s, Evaluator.num(x));
            }
            return s;
          })),
  EXACT_DIV(
      "/",
      2,
      2,
      false,
      "exact integer division; no match when not exact",
      strict(
          (e, v) -> {
            long d = Evaluator.num(v[1]);
            if (d == 0 || Evaluator.num(v[0]) % d != 0) {
              throw NoMatch.INSTANCE;
            }
            return Evaluator.num(v[0]) / d;
          })),
  REM(
      "%",
      2,
      2,
      false,
      "remainder",
      strict((e, v) -> Math.floorMod(Evaluator.num(v[0]), nonZero(v[1])))),
  FLOOR_DIV(
      "div",
      2,
      2,
      false,
      "floor division",
      strict((e, v) -> Math.floorDiv(Evaluator.num(v[0]), nonZero(v[1])))),
  MIN(
      "min",
      1,
      -1,
      false,
      "minimum",
      strict((e, v) -> Arrays.stream(v).mapToLong(Evaluator::num).min().getAsLong())),
  MAX(
      "max",
      1,
      -1,
      false,
      "maximum",
      strict((e, v) -> Arrays.stream(v).mapToLong(Evaluator::num).max().getAsLong())),
  EQ(
      "=",
      2,
      2,
      false,
      "equal (integers, lists, or tensors: one e-class)",
      strict((e, v) -> bool(e.same(v[0], v[1])))),
  NE("!=", 2, 2, false, "not equal", strict((e, v) -> bool(!e.same(v[0], v[1])))),
  LT("<", 2, 2, false, "less", strict((e, v) -> bool(Evaluator.num(v[0]) < Evaluator.num(v[1])))),
  LE(
      "<=",
      2,
      2,
      false,
      "less or equal",
      strict((e, v) -> bool(Evaluator.num(v[0]) <= Evaluator.num(v[1])))),
  GT(
      ">",
      2,
      2,
      false,
      "greater",
      strict((e, v) -> bool(Evaluator.num(v[0]) > Evaluator.num(v[1])))),
  GE(
      ">=",
      2,
      2,
      false,
      "greater or equal",
      strict((e, v) -> bool(Evaluator.num(v[0]) >= Evaluator.num(v[1])))),
  AND(
      "and",
      1,
      -1,
      false,
      "all true",
      (e, a, b, index) -> {
        for (Calc x : a) {
          if (e.integer(x, b, index) == 0) {
            return 0L;
          }
        }
        return 1L;
      }),
  OR(
      "or",
      1,
      -1,
      false,
      "any true",
      (e, a, b, index) -> {
        for (Calc x : a) {
          if (e.integer(x, b, index) != 0) {
            return 1L;
          }
        }
        return 0L;
      }),
  NOT("not", 1, 1, false, "negation", strict((e, v) -> bool(Evaluator.num(v[0]) == 0))),
  ALL(
      "all",
      1,
      1,
      false,
      "true for every index of the list variables inside",
      (e, a, b, index) -> e.quantify(a[0], b, index, true)),
  ANY(
      "any",
      1,
      1,
      false,
      "true for some index of the list variables inside",
      (e, a, b, index) -> e.quantify(a[0], b, index, false)),
  SIZE(
      "size",
      2,
      2,
      false,
      "(size ?x D): size of dim D of class ?x",
      strict(
          (e, v) -> {
            long[] s = e.type(v[0]).shape();
            long d = Evaluator.num(v[1]);
            if (d < 0 || d >= s.length) {
              throw NoMatch.INSTANCE;
            }
            return s[(int) d];
          })),
  RANK(
      "rank",
      1,
      1,
      false,
      "number of dims of a class",
      strict((e, v) -> (long) e.type(v[0]).shape().length)),
  NUMEL(
      "numel",
      1,
      1,
      false,
      "number of elements of a class",
      strict((e, v) -> e.type(v[0]).numel())),
  DTYPE(
      "dtype", 1, 1, false, "dtype code of a class", strict((e, v) -> (long) e.type(v[0]).dtype())),
  SHAPE(
      "shape", 1, 1, true, "the shape of a class", strict((e, v) -> e.type(v[0]).shape().clone())),
  IS_CONST(
      "is-const",
      2,
      2,
      false,
      "(is-const ?x V): every element of ?x is the number V",
      strict(
          (e, v) -> {
            Double k = e.type(v[0]).constant();
            return bool(k != null && k == (double) Evaluator.num(v[1]));
          })),
  COUNT(
      "count",
      1,
      1,
      false,
      "length of a list variable",
      true,
      (e, a, b, index) -> (long) Evaluator.classes(b, a[0]).length),
  LEN("len", 1, 1, false, "length of a list", strict((e, v) -> (long) Evaluator.lst(v[0]).length)),
  NTH(
      "nth",
      2,
      2,
      false,
      "(nth L I): element I of a list",
      strict(
          (e, v) -> {
            long[] l = Evaluator.lst(v[0]);
            return l[index(Evaluator.num(v[1]), l.length)];
          })),
  SET(
      "set",
      3,
      3,
      true,
      "(set L I V): L with element I replaced by V",
      strict(
          (e, v) -> {
            long[] l = Evaluator.lst(v[0]).clone();
            l[index(Evaluator.num(v[1]), l.length)] = Evaluator.num(v[2]);
            return l;
          })),
  INSERT(
      "insert",
      3,
      3,
      true,
      "(insert L I V): L with V inserted before I",
      strict(
          (e, v) -> {
            long[] l = Evaluator.lst(v[0]);
            int i = index(Evaluator.num(v[1]), l.length + 1);
            long[] out = new long[l.length + 1];
            System.arraycopy(l, 0, out, 0, i);
            out[i] = Evaluator.num(v[2]);
            System.arraycopy(l, i, out, i + 1, l.length - i);
            return out;
          })),
  REMOVE(
      "remove",
      2,
      2,
      true,
      "(remove L I): L without element I",
      strict(
          (e, v) -> {
            long[] l = Evaluator.lst(v[0]);
            int i = index(Evaluator.num(v[1]), l.length);
            long[] out = new long[l.length - 1];
            System.arraycopy(l, 0, out, 0, i);
            System.arraycopy(l, i + 1, out, i, l.length - i - 1);
            return out;
          })),
  SUBLIST(
      "sublist",
      3,
      3,
      true,
      "(sublist L A B): elements A..B-1",
      strict(
          (e, v) -> {
            long[] l = Evaluator.lst(v[0]);
            long a = Evaluator.num(v[1]);
            long c = Evaluator.num(v[2]);
            if (a < 0 || c > l.length || a > c) {
              throw NoMatch.INSTANCE;
            }
            return Arrays.copyOfRange(l, (int) a, (int) c);
          })),
  APPEND(
      "append",
      2,
      -1,
      true,
      "concatenation of lists",
      strict(
          (e, v) -> {
            long[] out = new long[0];
            for (Object x : v) {
              long[] l = Evaluator.lst(x);
              long[] n = Arrays.copyOf(out, out.length + l.length);
              System.arraycopy(l, 0, n, out.length, l.length);
              out = n;
            }
            return out;
          })),
  LIST(
      "list",
      0,
      -1,
      true,
      "a list of the given integers",
      strict((e, v) -> Arrays.stream(v).mapToLong(Evaluator::num).toArray())),
  IOTA(
      "iota",
      1,
      1,
      true,
      "(iota N): 0, 1, ..., N-1",
      strict(
          (e, v) -> {
            long n = Evaluator.num(v[0]);
            if (n < 0 || n > 64) {
              throw NoMatch.INSTANCE;
            }
            long[] out = new long[(int) n];
            for (int i = 0; i < n; i++) {
              out[i] = i;
            }
            return out;
          })),
  PROD(
      "prod",
      1,
      3,
      false,
      "(prod L) or (prod L A B): product of elements",
      strict(
          (e, v) -> {
            long[] l = Evaluator.lst(v[0]);
            long a = v.length > 1 ? Evaluator.num(v[1]) : 0;
            long c = v.length > 2 ? Evaluator.num(v[2]) : l.length;
            if (a < 0 || c > l.length || a > c) {
              throw NoMatch.INSTANCE;
            }
            long p = 1;
            for (int i = (int) a; i < c; i++) {
              p = Math.multiplyExact(p, l[i]);
            }
            return p;
          })),
  INDEX_OF(
      "index-of",
      2,
      2,
      false,
      "(index-of L V): first position of V, no match when absent",
      strict(
          (e, v) -> {
            long[] l = Evaluator.lst(v[0]);
            long x = Evaluator.num(v[1]);
            for (int i = 0; i < l.length; i++) {
              if (l[i] == x) {
                return (long) i;
              }
            }
            throw NoMatch.INSTANCE;
          })),
  SUM_SIZE(
      "sum-size",
      2,
      2,
      false,
      "(sum-size ?xs D): sum of dim D over a list of classes",
      true,
      (e, a, b, index) -> {
        long d = e.integer(a[1], b, index);
        long s = 0;
        for (int c : Evaluator.classes(b, a[0])) {
          s += e.dimSize(c, d);
        }
        return s;
      }),
  OFFSET(
      "offset",
      2,
      2,
      false,
      "(offset ?xs D): inside a map or all, dim D sizes of the earlier items",
      true,
      (e, a, b, index) -> {
        int[] cl = Evaluator.classes(b, a[0]);
        if (index < 0 || index > cl.length) {
          throw NoMatch.INSTANCE;
        }
        long d = e.integer(a[1], b, index);
        long s = 0;
        for (int i = 0; i < index; i++) {
          s += e.dimSize(cl[i], d);
        }
        return s;
      }),
  INDEX(
      "index",
      0,
      0,
      false,
      "inside a map or all, the current index",
      (e, a, b, index) -> {
        if (index < 0) {
          throw NoMatch.INSTANCE;
        }
        return (long) index;
      }),
  FDIV(
      "fdiv",
      2,
      2,
      false,
      "(fdiv A B): the double A/B, as attribute bits",
      strict((e, v) -> Double.doubleToLongBits((double) Evaluator.num(v[0]) / nonZero(v[1])))),
  FBITS(
      "fbits",
      1,
      1,
      false,
      "(fbits N): the double N, as attribute bits",
      strict((e, v) -> Double.doubleToLongBits((double) Evaluator.num(v[0])))),
  BROADCAST_DIM(
      "broadcast-dim",
      3,
      3,
      false,
      "(broadcast-dim ?x SHAPE D): 1 when expanding ?x to SHAPE repeats it along dim D",
      strict(
          (e, v) ->
              bool(
                  ShapeMath.broadcastsAlong(
                      e.type(v[0]).shape(), Evaluator.lst(v[1]), Evaluator.num(v[2]))))),
  RESHAPE_DIM(
      "reshape-dim",
      3,
      3,
      false,
      "(reshape-dim IN OUT D): the dim of OUT that dim D of IN becomes as one block; no match otherwise",
      strict(
          (e, v) ->
              (long)
                  ShapeMath.reshapeDim(
                      Evaluator.lst(v[0]), Evaluator.lst(v[1]), Evaluator.num(v[2])))),
  RESHAPE_PIECE(
      "reshape-piece",
      4,
      4,
      true,
      "(reshape-piece IN OUT D N): OUT for a piece of IN whose dim D has size N",
      strict(
          (e, v) ->
              ShapeMath.reshapePiece(
                  Evaluator.lst(v[0]),
                  Evaluator.lst(v[1]),
                  Evaluator.num(v[2]),
                  Evaluator.num(v[3])))),
  PERMUTE_INVERSE(
      "permute-inverse",
      1,
      1,
      true,
      "inverse of a permutation",
      strict((e, v) -> ShapeMath.inverse(Evaluator.lst(v[0])))),
  PERMUTE_COMPOSE(
      "permute-compose",
      2,
      2,
      true,
      "(permute-compose P Q): permute by P then Q",
      strict((e, v) -> ShapeMath.compose(Evaluator.lst(v[0]), Evaluator.lst(v[1])))),
  HEAD(
      "head",
      1,
      1,
      false,
      "(head ?xs): the first class of a list variable",
      true,
      (e, a, b, index) -> {
        int[] cl = Evaluator.classes(b, a[0]);
        if (cl.length == 0) {
          throw NoMatch.INSTANCE;
        }
        return cl[0];
      }),
  CONTAINS(
      "contains",
      2,
      2,
      false,
      "(contains L V): 1 when V is in the list",
      strict(
          (e, v) -> {
            long x = Evaluator.num(v[1]);
            return bool(Arrays.stream(Evaluator.lst(v[0])).anyMatch(y -> y == x));
          })),
  COUNT_BELOW(
      "count-below",
      2,
      2,
      false,
      "(count-below L V): how many elements are below V",
      strict(
          (e, v) -> {
            long x = Evaluator.num(v[1]);
            return Arrays.stream(Evaluator.lst(v[0])).filter(y -> y < x).count();
          })),
  IVAL(
      "ival",
      1,
      1,
      false,
      "(ival B): the integer whose double has attribute bits B; no match otherwise",
      strict(
          (e, v) -> {
            double d = Double.longBitsToDouble(Evaluator.num(v[0]));
            if (d != Math.rint(d) || Double.isInfinite(d)) {
              throw NoMatch.INSTANCE;
            }
            return (long) d;
          })),
  PERMUTE_LIST(
      "permute-list",
      2,
      2,
      true,
      "(permute-list L P): L reordered by P, element i is L[P[i]]",
      strict((e, v) -> ShapeMath.permuteList(Evaluator.lst(v[0]), Evaluator.lst(v[1])))),
  LIFT_PERMUTE(
      "lift-permute",
      3,
      3,
      true,
      "(lift-permute IN OUT P): for a reshape IN -> OUT that only merges or splits runs of dims, the "
          + "permute of IN that moves the same runs as P moves in OUT; no match when P splits a run",
      strict(
          (e, v) ->
              ShapeMath.liftPermute(
                  Evaluator.lst(v[0]), Evaluator.lst(v[1]), Evaluator.lst(v[2])))),
  IS_CONCAT(
      "is-concat",
      1,
      1,
      false,
      "(is-concat ?x): 1 when the class holds a concat",
      strict((e, v) -> bool(e.holds(v[0], Op.CONCAT)))),
  IS_RESHAPE(
      "is-reshape",
      1,
      1,
      false,
      "(is-reshape ?x): 1 when the class holds a reshape",
      strict((e, v) -> bool(e.holds(v[0], Op.RESHAPE)))),
  FITS(
      "fits",
      2,
      2,
      false,
      "(fits V D): 1 when dtype D holds the integer V exactly",
      strict((e, v) -> bool(Dtype.holdsExactly(Evaluator.num(v[1]), Evaluator.num(v[0]))))),
  IS_FLOAT(
      "is-float",
      1,
      1,
      false,
      "(is-float ?x): 1 when the class has a floating dtype",
      strict((e, v) -> bool(Dtype.isFloating(e.type(v[0]).dtype())))),
  UNIT_MOVES(
      "unit-moves",
      2,
      2,
      false,
      "(unit-moves P S): 1 when permuting a tensor of shape S by P moves only dims of size 1",
      strict(
          (e, v) -> {
            long[] p = Evaluator.lst(v[0]);
            long[] shape = Evaluator.lst(v[1]);
            long last = -1;
            for (long d : p) {
              if (d < 0 || d >= shape.length) {
                throw NoMatch.INSTANCE;
              }
              if (shape[(int) d] != 1) {
                if (d < last) {
                  return 0L;
                }
                last = d;
              }
            }
            return 1L;
          })),
  REDUCE_SHAPE(
      "reduce-shape",
      3,
      3,
      true,
      "(reduce-shape S DS K): the shape S reduced over the dims DS, kept as 1 when K is 1, else removed",
      strict(
          (e, v) ->
              ShapeMath.reduced(
                  Evaluator.lst(v[0]), Evaluator.lst(v[1]), Evaluator.num(v[2]) != 0))),
  DROP_UNITS(
      "drop-units",
      1,
      1,
      true,
      "(drop-units S): the shape S without its dims of size 1",
      strict((e, v) -> ShapeMath.withoutUnits(Evaluator.lst(v[0])))),
  FMUL(
      "fmul",
      2,
      2,
      false,
      "(fmul A B): the product of the constants with attribute bits A and B, as attribute bits, taken on the"
          + " small fractions they stand for (Rationals); no match when either is none",
      strict(
          (e, v) -> {
            Double p =
                Rationals.product(
                    Double.longBitsToDouble(Evaluator.num(v[0])),
                    Double.longBitsToDouble(Evaluator.num(v[1])));
            if (p == null) {
              throw NoMatch.INSTANCE;
            }
            return Double.doubleToLongBits(p);
          })),
  FRECIP(
      "frecip",
      1,
      1,
      false,
      "(frecip A): the reciprocal of the constant with attribute bits A, taken on the small fraction it stands"
          + " for; no match when it is none, or zero",
      strict(
          (e, v) -> {
            Double r = Rationals.reciprocal(Double.longBitsToDouble(Evaluator.num(v[0])));
            if (r == null) {
              throw NoMatch.INSTANCE;
            }
            return Double.doubleToLongBits(r);
          })),
  IS_CONSTANT(
      "is-constant",
      1,
      1,
      false,
      "(is-constant ?x): 1 when every element of ?x is one known number",
      strict((e, v) -> bool(e.type(v[0]).constant() != null))),
  CONST(
      "const",
      1,
      1,
      false,
      "(const ?x): the number every element of ?x holds, as attribute bits; no match when it is not known",
      strict(
          (e, v) -> {
            Double k = e.type(v[0]).constant();
            if (k == null) {
              throw NoMatch.INSTANCE;
            }
            return Double.doubleToLongBits(k);
          })),
  NONNEG(
      "nonneg",
      1,
      1,
      false,
      "(nonneg ?ids): 1 when every element of an integer class is shown to be at least 0 (see"
          + " IdBounds)",
      strict((e, v) -> bool(e.nonNegative(v[0])))),
  BELOW(
      "below",
      2,
      2,
      false,
      "(below ?a ?b): 1 when every element of the integer class ?a is shown to be below every"
          + " element of ?b, from how they are built (see IdBounds)",
      strict((e, v) -> bool(e.ordered(v[0], v[1], true)))),
  ALWAYS(
      "always",
      1,
      1,
      false,
      "(always ?m): 1 when every element of the bool class ?m is shown true, from how it is built"
          + " (comparisons of ids the bounds decide, and, or, not; see IdBounds)",
      strict((e, v) -> bool(e.always(v[0], 1)))),
  NEVER(
      "never",
      1,
      1,
      false,
      "(never ?m): 1 when every element of the bool class ?m is shown false (see always)",
      strict((e, v) -> bool(e.always(v[0], 0)))),
  EXACT_SUB(
      "exact-sub",
      2,
      2,
      false,
      "(exact-sub ?t C): 1 when the integer class ?t less the number C, computed in its dtype, is"
          + " shown to be the exact difference (its bounds are finite and nothing wraps around)",
      strict((e, v) -> bool(e.exactDifference(v[0], Evaluator.num(v[1]))))),
  AT_MOST(
      "at-most",
      2,
      2,
      false,
      "(at-most ?a ?b): 1 when every element of the integer class ?a is shown to be at most every"
          + " element of ?b, from how they are built (see IdBounds)",
      strict((e, v) -> bool(e.ordered(v[0], v[1], false)))),
  WITHIN(
      "within",
      3,
      3,
      false,
      "(within ?ids LO HI): 1 when every element of the integer class ?ids is shown to lie in [LO,"
          + " HI), from how it is built (see IdBounds; a relation's in_range states it)",
      strict((e, v) -> bool(e.within(v[0], Evaluator.num(v[1]), Evaluator.num(v[2]))))),
  FINITE(
      "finite",
      1,
      1,
      false,
      "(finite A): 1 when the attribute bits A (a scalar's value, as (const ?x) gives it) are a"
          + " finite number",
      strict((e, v) -> bool(Double.isFinite(Double.longBitsToDouble(Evaluator.num(v[0])))))),
  IS_SUMN(
      "is-sumn",
      1,
      1,
      false,
      "(is-sumn ?x): 1 when the class holds a sum across ranks (sumn)",
      strict((e, v) -> bool(e.holds(v[0], Op.SUMN)))),
  IS_SLICE(
      "is-slice",
      1,
      1,
      false,
      "(is-slice ?x): 1 when the class holds a slice",
      strict((e, v) -> bool(e.holds(v[0], Op.SLICE)))),
  IDENTITY_PERM(
      "identity-perm",
      1,
      1,
      false,
      "1 when the list is 0, 1, ..., n-1",
      strict(
          (e, v) -> {
            long[] l = Evaluator.lst(v[0]);
            for (int i = 0; i < l.length; i++) {
              if (l[i] != i) {
                return 0L;
              }
            }
            return 1L;
          }));

  /** How a function computes its value from its argument expressions. */
  @FunctionalInterface
  interface Impl {
    Object eval(Evaluator e, Calc[] args, Object[] bindings, int index);
  }

  /** A function of its arguments' values. */
  @FunctionalInterface
  interface StrictImpl {
    Object apply(Evaluator e, Object[] values);
  }

  /** The name rules call it by. */
  final String symbol;

  /** Fewest arguments. */
  final int min;

  /** Most arguments, or -1 for any number. */
  final int max;

  /** Whether the result is a list. */
  final boolean list;

  /** One line of documentation. */
  final String doc;

  /** Whether the first argument must be a list variable such as {@code ?xs}. */
  final boolean takesListVariable;

  final Impl impl;

  private static final Map<String, Fn> BY_SYMBOL = new HashMap<>();

  static {
    for (Fn f : values()) {
      BY_SYMBOL.put(f.symbol, f);
    }
  }

  Fn(String symbol, int min, int max, boolean list, String doc, Impl impl) {
    this(symbol, min, max, list, doc, false, impl);
  }

  Fn(
      String symbol,
      int min,
      int max,
      boolean list,
      String doc,
      boolean takesListVariable,
      Impl impl) {
    this.symbol = symbol;
    this.min = min;
    this.max = max;
    this.list = list;
    this.doc = doc;
    this.takesListVariable = takesListVariable;
    this.impl = impl;
  }

  /**
   * How many child steps below the classes it is given the function reads nodes: 0 for all but
   * those that look into how a class is built ({@code nonneg}); a rule calling one is searched
   * again when a class that far below its pattern changes ({@link RuleSearcher}).
   */
  int readsBelow() {
    return READ_BOUNDS.contains(this) ? IdBounds.READS_BELOW : 0;
  }

  /** The functions that ask {@link IdBounds}, which reads how a class is built. */
  private static final Set<Fn> READ_BOUNDS =
      EnumSet.of(NONNEG, BELOW, AT_MOST, EXACT_SUB, ALWAYS, NEVER);

  /** The function a rule names, or null. */
  static Fn bySymbol(String symbol) {
    return BY_SYMBOL.get(symbol);
  }

  private static Impl strict(StrictImpl f) {
    return (e, a, b, index) -> {
      Object[] v = new Object[a.length];
      for (int i = 0; i < a.length; i++) {
        v[i] = e.eval(a[i], b, index);
      }
      return f.apply(e, v);
    };
  }

  private static long bool(boolean b) {
    return b ? 1L : 0L;
  }

  private static long nonZero(Object v) {
    long d = Evaluator.num(v);
    if (d == 0) {
      throw NoMatch.INSTANCE;
    }
    return d;
  }

  private static int index(long i, int n) {
    if (i < 0 || i >= n) {
      throw NoMatch.INSTANCE;
    }
    return (int) i;
  }
}
