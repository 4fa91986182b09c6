package dev.entangle.rules;

import java.util.Map;

/**
 * The functions a rule's expressions may call, with their argument counts. Values are integers
 * (booleans are 0/1), integer lists, e-classes and lists of e-classes. Semantics are in {@link
 * Evaluator}; this table is what the compiler checks rules against.
 */
final class Functions {
  /** min and max argument counts (max -1: any), and whether the result is a list. */
  record Sig(int min, int max, boolean list, String doc) {}

  static final Map<String, Sig> SIGS =
      Map.ofEntries(
          Map.entry("+", new Sig(1, -1, false, "sum")),
          Map.entry("-", new Sig(1, 2, false, "difference or negation")),
          Map.entry("*", new Sig(1, -1, false, "product")),
          Map.entry("/", new Sig(2, 2, false, "exact integer division; no match when not exact")),
          Map.entry("%", new Sig(2, 2, false, "remainder")),
          Map.entry("div", new Sig(2, 2, false, "floor division")),
          Map.entry("min", new Sig(1, -1, false, "minimum")),
          Map.entry("max", new Sig(1, -1, false, "maximum")),
          Map.entry("=", new Sig(2, 2, false, "equal (integers, lists, or tensors: one e-class)")),
          Map.entry("!=", new Sig(2, 2, false, "not equal")),
          Map.entry("<", new Sig(2, 2, false, "less")),
          Map.entry("<=", new Sig(2, 2, false, "less or equal")),
          Map.entry(">", new Sig(2, 2, false, "greater")),
          Map.entry(">=", new Sig(2, 2, false, "greater or equal")),
          Map.entry("and", new Sig(1, -1, false, "all true")),
          Map.entry("or", new Sig(1, -1, false, "any true")),
          Map.entry("not", new Sig(1, 1, false, "negation")),
          Map.entry("all", new Sig(1, 1, false, "true for every index of the list variables inside")),
          Map.entry("any", new Sig(1, 1, false, "true for some index of the list variables inside")),
          Map.entry("size", new Sig(2, 2, false, "(size ?x D): size of dim D of class ?x")),
          Map.entry("rank", new Sig(1, 1, false, "number of dims of a class")),
          Map.entry("numel", new Sig(1, 1, false, "number of elements of a class")),
          Map.entry("dtype", new Sig(1, 1, false, "dtype code of a class")),
          Map.entry("shape", new Sig(1, 1, true, "the shape of a class")),
          Map.entry("is-const", new Sig(2, 2, false, "(is-const ?x V): every element of ?x is the number V")),
          Map.entry("count", new Sig(1, 1, false, "length of a list variable")),
          Map.entry("len", new Sig(1, 1, false, "length of a list")),
          Map.entry("nth", new Sig(2, 2, false, "(nth L I): element I of a list")),
          Map.entry("set", new Sig(3, 3, true, "(set L I V): L with element I replaced by V")),
          Map.entry("insert", new Sig(3, 3, true, "(insert L I V): L with V inserted before I")),
          Map.entry("remove", new Sig(2, 2, true, "(remove L I): L without element I")),
          Map.entry("sublist", new Sig(3, 3, true, "(sublist L A B): elements A..B-1")),
          Map.entry("append", new Sig(2, -1, true, "concatenation of lists")),
          Map.entry("list", new Sig(0, -1, true, "a list of the given integers")),
          Map.entry("iota", new Sig(1, 1, true, "(iota N): 0, 1, ..., N-1")),
          Map.entry("prod", new Sig(1, 3, false, "(prod L) or (prod L A B): product of elements")),
          Map.entry("index-of", new Sig(2, 2, false, "(index-of L V): first position of V, no match when absent")),
          Map.entry("sum-size", new Sig(2, 2, false, "(sum-size ?xs D): sum of dim D over a list of classes")),
          Map.entry("offset", new Sig(2, 2, false, "(offset ?xs D): inside a map or all, dim D sizes of the earlier items")),
          Map.entry("index", new Sig(0, 0, false, "inside a map or all, the current index")),
          Map.entry("fdiv", new Sig(2, 2, false, "(fdiv A B): the double A/B, as attribute bits")),
          Map.entry("fbits", new Sig(1, 1, false, "(fbits N): the double N, as attribute bits")),
          Map.entry("reduce-shape", new Sig(3, 3, true,
              "(reduce-shape S DS K): the shape S reduced over the dims DS, kept as 1 when K is 1, else removed")),
          Map.entry("fmul", new Sig(2, 2, false,
              "(fmul A B): the product of the constants with attribute bits A and B, as attribute bits, taken on the"
                  + " small fractions they stand for (Rationals); no match when either is none")),
          Map.entry("frecip", new Sig(1, 1, false,
              "(frecip A): the reciprocal of the constant with attribute bits A, taken on the small fraction it stands"
                  + " for; no match when it is none, or zero")),
          Map.entry("is-constant", new Sig(1, 1, false, "(is-constant ?x): 1 when every element of ?x is one known number")),
          Map.entry("const", new Sig(1, 1, false,
              "(const ?x): the number every element of ?x holds, as attribute bits; no match when it is not known")),
          Map.entry("broadcast-dim", new Sig(3, 3, false,
              "(broadcast-dim ?x SHAPE D): 1 when expanding ?x to SHAPE repeats it along dim D")),
          Map.entry("reshape-dim", new Sig(3, 3, false,
              "(reshape-dim IN OUT D): the dim of OUT that dim D of IN becomes as one block; no match otherwise")),
          Map.entry("reshape-piece", new Sig(4, 4, true,
              "(reshape-piece IN OUT D N): OUT for a piece of IN whose dim D has size N")),
          Map.entry("permute-inverse", new Sig(1, 1, true, "inverse of a permutation")),
          Map.entry("permute-compose", new Sig(2, 2, true, "(permute-compose P Q): permute by P then Q")),
          Map.entry("head", new Sig(1, 1, false, "(head ?xs): the first class of a list variable")),
          Map.entry("contains", new Sig(2, 2, false, "(contains L V): 1 when V is in the list")),
          Map.entry("count-below", new Sig(2, 2, false, "(count-below L V): how many elements are below V")),
          Map.entry("ival", new Sig(1, 1, false, "(ival B): the integer whose double has attribute bits B; no match otherwise")),
          Map.entry("permute-list", new Sig(2, 2, true, "(permute-list L P): L reordered by P, element i is L[P[i]]")),
          Map.entry("lift-permute", new Sig(3, 3, true,
              "(lift-permute IN OUT P): for a reshape IN -> OUT that only merges or splits runs of dims, the "
                  + "permute of IN that moves the same runs as P moves in OUT; no match when P splits a run")),
          Map.entry("is-concat", new Sig(1, 1, false, "(is-concat ?x): 1 when the class holds a concat")),
          Map.entry("is-sumn", new Sig(1, 1, false, "(is-sumn ?x): 1 when the class holds a sum across ranks (sumn)")),
          Map.entry("fits", new Sig(2, 2, false, "(fits V D): 1 when dtype D holds the integer V exactly")),
          Map.entry("is-float", new Sig(1, 1, false, "(is-float ?x): 1 when the class has a floating dtype")),
          Map.entry("identity-perm", new Sig(1, 1, false, "1 when the list is 0, 1, ..., n-1")));

  private Functions() {}
}
