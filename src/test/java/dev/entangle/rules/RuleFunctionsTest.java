package dev.entangle.rules;

import static dev.entangle.rules.RuleFixture.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.core.Op;
import dev.entangle.egraph.ENode;
import dev.entangle.egraph.RunReport;
import dev.entangle.egraph.Runner;
import dev.entangle.egraph.StopReason;
import dev.entangle.util.InputException;
import org.junit.jupiter.api.Test;

/** The functions of conditions, lets and computed attributes, and what a failed condition does. */
class RuleFunctionsTest {
  private static final String X = "(neg ?x)";
  private static final String X23 = "(neg x:f32[2,3])";
  private static final String PARTS = "(concat[?d] ?x ?xs...)";

  /** A concat of parts with 1, 2 and 3 rows. */
  private static final String CAT = "(concat[0] x:f32[1,4] b:f32[2,4] c:f32[3,4])";

  private static String calc(String expr) {
    return value(X, expr, X23);
  }

  @Test
  void arithmetic() {
    assertEquals("6", calc("(+ 1 2 3)"));
    assertEquals("-4", calc("(- 4)"));
    assertEquals("1", calc("(- 4 3)"));
    assertEquals("24", calc("(* 2 3 4)"));
    assertEquals("3", calc("(/ 6 2)"));
    assertEquals("no match", calc("(/ 7 2)"), "division that is not exact does not apply");
    assertEquals("no match", calc("(/ 7 0)"));
    assertEquals("2", calc("(% -1 3)"), "remainder is floored");
    assertEquals("1", calc("(min 3 1 2)"));
    assertEquals("3", calc("(max 3 1 2)"));
    assertEquals("no match", calc("(* 4611686018427387904 4)"), "overflow does not apply");
  }

  @Test
  void comparisonsAndLogic() {
    assertEquals("1", calc("(= 2 2)"));
    assertEquals("0", calc("(!= 2 2)"));
    assertEquals("1", calc("(< 1 2)"));
    assertEquals("0", calc("(<= 3 2)"));
    assertEquals("1", calc("(> 3 2)"));
    assertEquals("1", calc("(>= 2 2)"));
    assertEquals("1", calc("(and 1 2 3)"));
    assertEquals("0", calc("(and 1 0 (/ 1 0))"), "and stops at the first false");
    assertEquals("1", calc("(or 0 1 (/ 1 0))"), "or stops at the first true");
    assertEquals("1", calc("(not false)"));
    assertEquals("1", calc("(= (list 1 2) (list 1 2))"), "lists compare element-wise");
    assertEquals("0", calc("(= (list 1 2) (list 2 1))"));
  }

  @Test
  void typeQueries() {
    assertEquals("3", calc("(size ?x 1)"));
    assertEquals("no match", calc("(size ?x 2)"));
    assertEquals("2", calc("(rank ?x)"));
    assertEquals("6", calc("(numel ?x)"));
    assertEquals("0", calc("(dtype ?x)"), "float32 is dtype 0");
    assertEquals("[2, 3]", calc("(shape ?x)"));
    assertEquals("1", value(X, "(is-const ?x 2)", "(neg (expand[2 3] (scalar[2.0 f32])))"));
    assertEquals("0", value(X, "(is-const ?x 3)", "(neg (expand[2 3] (scalar[2.0 f32])))"));
  }

  @Test
  void listFunctions() {
    assertEquals("2", calc("(len (shape ?x))"));
    assertEquals("3", calc("(nth (shape ?x) 1)"));
    assertEquals("no match", calc("(nth (shape ?x) 2)"));
    assertEquals("[2, 7]", calc("(set (shape ?x) 1 7)"));
    assertEquals("[2, 7, 3]", calc("(insert (shape ?x) 1 7)"));
    assertEquals("[3]", calc("(remove (shape ?x) 0)"));
    assertEquals("[2]", calc("(sublist (list 1 2 3) 1 2)"));
    assertEquals("[2, 3, 1]", calc("(append (shape ?x) (list 1))"));
    assertEquals("[0, 1, 2]", calc("(iota 3)"));
    assertEquals("24", calc("(prod (list 2 3 4))"));
    assertEquals("12", calc("(prod (list 2 3 4) 1 3)"));
    assertEquals("1", calc("(prod (list 2 3 4) 1 1)"), "an empty product is 1");
  }

  @Test
  void reduceShapeRemovesOrKeepsTheReducedDims() {
    assertEquals("[3]", calc("(reduce-shape (list 2 3 4) (list 0 2) 0)"));
    assertEquals("[1, 3, 1]", calc("(reduce-shape (list 2 3 4) (list 0 2) 1)"));
    assertEquals("[]", calc("(reduce-shape (list 2 3) (list 0 1) 0)"));
    assertEquals("no match", calc("(reduce-shape (list 2 3) (list 2) 0)"));
  }

  @Test
  void indexOfFindsTheFirstPositionAndFailsWhenAbsent() {
    assertEquals("2", calc("(index-of (list 2 0 1) 1)"));
    assertEquals("0", calc("(index-of (list 5 5) 5)"));
    assertEquals("no match", calc("(index-of (list 2 0 1) 3)"));
  }

  @Test
  void containsAndCountBelow() {
    assertEquals("1", calc("(contains (list 0 2 3) 2)"));
    assertEquals("0", calc("(contains (list 0 2 3) 1)"));
    assertEquals("0", calc("(contains (list) 1)"));
    assertEquals("2", calc("(count-below (list 0 2 3) 3)"));
    assertEquals("0", calc("(count-below (list 0 2 3) 0)"));
  }

  @Test
  void attributeListsAreListValues() {
    assertEquals(
        "1", value("(rsum[?k ?ds...] ?x)", "(contains ?ds 2)", "(rsum[0 0 2] x:f32[2,3,4])"));
    assertEquals(
        "1", value("(rsum[?k ?ds...] ?x)", "(count-below ?ds 1)", "(rsum[0 0 2] x:f32[2,3,4])"));
    assertEquals("[0, 2]", value("(rsum[?k ?ds...] ?x)", "?ds", "(rsum[0 0 2] x:f32[2,3,4])"));
  }

  @Test
  void floatsAreAttributeBits() {
    assertEquals(Long.toString(Double.doubleToLongBits(0.25)), calc("(fdiv 1 4)"));
    assertEquals(Long.toString(Double.doubleToLongBits(-1.5)), calc("(fdiv 3 -2)"));
    assertEquals("no match", calc("(fdiv 1 0)"));
    assertEquals(Long.toString(Double.doubleToLongBits(3.0)), calc("(fbits 3)"));
    assertEquals("0", calc("(fbits 0)"), "0.0 has all bits clear");
    assertEquals(Long.toString(Double.doubleToLongBits(0.75)), calc("(fmul (fdiv 1 4) (fbits 3))"));
    assertEquals(Long.toString(Double.doubleToLongBits(0.25)), calc("(frecip (fbits 4))"));
    assertEquals(Long.toString(Double.doubleToLongBits(-2.0)), calc("(frecip (fdiv -1 2))"));
    assertEquals("no match", calc("(frecip (fbits 0))"), "0 has no reciprocal");
    assertEquals(
        "no match", calc("(frecip " + Double.doubleToLongBits(Double.NEGATIVE_INFINITY) + ")"));
    assertEquals("no match", calc("(frecip " + Double.doubleToLongBits(-0.0) + ")"));
    assertEquals(Long.toString(Double.doubleToLongBits(1.0)), calc("(fmul (fdiv 1 3) (fbits 3))"));
    assertEquals(
        Long.toString(Double.doubleToLongBits(1.0 / 24)), calc("(fmul (fdiv 1 12) (fdiv 1 2))"));
    assertEquals(
        Long.toString(Double.doubleToLongBits(1.0 / 21)),
        calc("(fmul (fdiv 1 3) (fdiv 1 7))"),
        "constants multiply as the fractions they stand for, rounded once");
    assertEquals(Long.toString(Double.doubleToLongBits(3.0)), calc("(frecip (fdiv 1 3))"));
    long irrational = Double.doubleToLongBits(Math.sqrt(2));
    assertEquals(
        "no match",
        calc("(fmul " + irrational + " (fbits 2))"),
        "a constant that is no small fraction");
    assertEquals("no match", calc("(frecip " + irrational + ")"));
  }

  @Test
  void constantsOfClasses() {
    String c = "(neg (expand[2 3] (scalar[2.5 f32])))";
    assertEquals("1", value(X, "(is-constant ?x)", c));
    assertEquals(Long.toString(Double.doubleToLongBits(2.5)), value(X, "(const ?x)", c));
    assertEquals("0", value(X, "(is-constant ?x)", X23));
    assertEquals(
        "no match", value(X, "(const ?x)", X23), "a tensor of unknown values has no constant");
  }

  @Test
  void classesTellWhatTheyHold() {
    assertEquals("1", value(X, "(is-sumn ?x)", "(neg (sumn a:f32[2] b:f32[2]))"));
    assertEquals("0", value(X, "(is-sumn ?x)", "(neg (concat[0] a:f32[1] b:f32[1]))"));
    assertEquals("1", value(X, "(is-concat ?x)", "(neg (concat[0] a:f32[1] b:f32[1]))"));
  }

  @Test
  void tensorsCompareByClass() {
    assertEquals("1", value("(add ?x ?y)", "(= ?x ?y)", "(add x:f32[2] x)"));
    assertEquals("0", value("(add ?x ?y)", "(= ?x ?y)", "(add x:f32[2] y:f32[2])"));
    assertEquals("1", value("(sumn ?x ?xs...)", "(all (= ?xs ?x))", "(sumn x:f32[2] x x)"));
    assertEquals("0", value("(sumn ?x ?xs...)", "(all (= ?xs ?x))", "(sumn x:f32[2] x y:f32[2])"));
  }

  @Test
  void ivalReadsIntegralFloatsOnly() {
    assertEquals("3", calc("(ival (fbits 3))"));
    assertEquals("-2", calc("(ival (fdiv -4 2))"));
    assertEquals("no match", calc("(ival (fdiv 1 2))"));
    assertEquals("no match", calc("(ival (fdiv 1 0))"));
    assertEquals(
        "4",
        value(
            "(add ?x (expand[?s...] (scalar[?b ?t])))",
            "(ival ?b)",
            "(add y:i64[3] (expand[3] (scalar[4.0 i64])))"));
  }

  @Test
  void listVariablesInsideAllAndAnyStandForEachElement() {
    assertEquals("1", value(PARTS, "(all (= (size ?xs 1) 4))", CAT));
    assertEquals("1", value(PARTS, "(all (> (size ?xs 0) 1))", CAT));
    assertEquals("0", value(PARTS, "(all (> (size ?xs 0) 2))", CAT));
    assertEquals("1", value(PARTS, "(any (= (size ?xs 0) 3))", CAT));
    assertEquals("0", value(PARTS, "(any (= (size ?xs 0) 4))", CAT));
    assertEquals(
        "1",
        value("(concat[?d] ?xs... ?x)", "(all (< (size ?xs 0) 3))", CAT),
        "all over the list before the last part");
    assertEquals(
        "1",
        value("(concat[?d] ?x ?xs...)", "(all (> (size ?xs 0) 9))", "(concat[0] x:f32[1,4])"),
        "all of nothing is true");
    assertEquals(
        "0",
        value("(concat[?d] ?x ?xs...)", "(any (> (size ?xs 0) 0))", "(concat[0] x:f32[1,4])"),
        "any of nothing is false");
  }

  @Test
  void offsetIsTheSizeOfTheEarlierPartsAtEachIndex() {
    String pattern = "(concat[?d] ?xs... ?x)";
    String cat = "(concat[0] a:f32[1,4] b:f32[2,4] c:f32[3,4] x:f32[1,4])";
    assertEquals(
        "1",
        value(pattern, "(all (= (offset ?xs 0) (/ (* (index) (+ (index) 1)) 2)))", cat),
        "offsets 0, 1, 3 of parts 1, 2, 3");
    assertEquals("1", value(pattern, "(any (= (offset ?xs 0) 3))", cat));
    assertEquals("0", value(pattern, "(any (= (offset ?xs 0) 2))", cat));
    assertEquals(
        "no match",
        value(pattern, "(offset ?xs 0)", cat),
        "offset only applies inside all, any or a map");
  }

  @Test
  void offsetBuildsTheMatchingSlicesOfAMappedTemplate() {
    RuleFixture f =
        new RuleFixture(
            "(rule r (add (concat[?d] ?xs...) ?y) (concat[?d] (slice[?d (offset ?xs ?d) (+ (offset ?xs ?d) (size ?xs ?d)) 1] ?y)...))");
    int c = f.add("(add (concat[0] a:f32[1,2] b:f32[2,2] e:f32[3,2]) y:f32[6,2])");
    int built = f.applyFirst("r", c);
    assertEquals(
        "(concat[0] (slice[0 0 1 1] y) (slice[0 1 3 1] y) (slice[0 3 6 1] y))",
        f.terms.nameOf(built));
  }

  @Test
  void sumSizeAddsADimOverAList() {
    assertEquals("5", value(PARTS, "(sum-size ?xs 0)", CAT));
    assertEquals("8", value(PARTS, "(sum-size ?xs 1)", CAT));
    assertEquals("no match", value(PARTS, "(sum-size ?xs 2)", CAT));
    assertEquals(
        "0", value("(concat[?d] ?x ?xs...)", "(sum-size ?xs 0)", "(concat[0] x:f32[1,4])"));
    InputException e =
        assertThrows(InputException.class, () -> value(PARTS, "(sum-size ?x 0)", CAT));
    assertTrue(e.getMessage().contains("sum-size takes a list variable"), e.getMessage());
  }

  @Test
  void headIsTheFirstClassOfAList() {
    assertEquals("b", value(PARTS, "(head ?xs)", CAT));
    assertEquals("[2, 4]", value(PARTS, "(shape (head ?xs))", CAT));
    assertEquals(
        "no match", value("(concat[?d] ?x ?xs...)", "(head ?xs)", "(concat[0] x:f32[1,4])"));
  }

  @Test
  void countIsTheLengthOfAListVariable() {
    assertEquals("2", value(PARTS, "(count ?xs)", CAT));
    assertEquals("0", value("(concat[?d] ?x ?xs...)", "(count ?xs)", "(concat[0] x:f32[1,4])"));
  }

  @Test
  void reshapeDimFindsWhereADimGoesAsOneBlock() {
    assertEquals("1", calc("(reshape-dim (list 4 6) (list 4 2 3) 1)"));
    assertEquals("0", calc("(reshape-dim (list 2 3 4) (list 6 4) 0)"));
    assertEquals("1", calc("(reshape-dim (list 2 3 4) (list 2 12) 1)"));
    assertEquals("2", calc("(reshape-dim (list 2 6) (list 2 1 6) 1)"), "skips a dim of size 1");
    assertEquals(
        "no match", calc("(reshape-dim (list 2 6) (list 12) 1)"), "rows merge with the dim");
    assertEquals("no match", calc("(reshape-dim (list 2 6) (list 3 4) 1)"));
    assertEquals(
        "no match", calc("(reshape-dim (list 2 6) (list 2 5) 1)"), "element counts differ");
  }

  @Test
  void reshapePieceIsTheShapeOfOneBlock() {
    assertEquals("[4, 1, 3]", calc("(reshape-piece (list 4 6) (list 4 2 3) 1 3)"));
    assertEquals("[2, 3, 2]", calc("(reshape-piece (list 4 6) (list 4 3 2) 0 2)"));
    assertEquals("[2, 8]", calc("(reshape-piece (list 2 3 4) (list 2 12) 1 2)"));
    assertEquals(
        "no match",
        calc("(reshape-piece (list 4 6) (list 4 2 3) 1 2)"),
        "2 columns are not whole rows of 3");
  }

  @Test
  void permuteComposeAndInverse() {
    assertEquals("[1, 2, 0]", calc("(permute-compose (list 1 0 2) (list 0 2 1))"));
    assertEquals("[0, 1, 2]", calc("(permute-compose (list 2 0 1) (list 1 2 0))"));
    assertEquals("no match", calc("(permute-compose (list 1 0) (list 0 2 1))"));
    assertEquals("[1, 2, 0]", calc("(permute-inverse (list 2 0 1))"));
    assertEquals("1", calc("(identity-perm (list 0 1 2))"));
    assertEquals("0", calc("(identity-perm (list 1 0))"));
  }

  @Test
  void broadcastDimTellsWhetherAnExpandRepeatsAlongADim() {
    assertEquals("1", value(X, "(broadcast-dim ?x (list 4 2 3) 0)", X23), "a new leading dim");
    assertEquals("0", value(X, "(broadcast-dim ?x (list 4 2 3) 1)", X23));
    assertEquals("1", value(X, "(broadcast-dim ?x (list 2 5) 1)", "(neg x:f32[2,1])"));
    assertEquals("no match", value(X, "(broadcast-dim ?x (list 2 3) 2)", X23));
  }

  @Test
  void aFailedConditionMeansNoRewrite() {
    RuleFixture f =
        new RuleFixture(
            String.join(
                "\n",
                "(rule rank3 (neg ?x) (relu ?x) :when (= (rank ?x) 3))",
                "(rule undefined (exp ?x) (relu ?x) :when (= (nth (shape ?x) 5) 1))",
                "(rule let-fails (abs ?x) (relu ?x) :let ((?n (/ (size ?x 0) 0))))"));
    int neg2 = f.add("(neg a:f32[2,3])");
    int neg3 = f.add("(neg b:f32[2,3,4])");
    int exp = f.add("(exp a)");
    int abs = f.add("(abs a)");
    int nodes = f.graph().nodeCount();
    assertEquals(-1, f.applyFirst("rank3", neg2));
    assertEquals(-1, f.applyFirst("undefined", exp));
    assertEquals(-1, f.applyFirst("let-fails", abs));
    assertEquals(nodes, f.graph().nodeCount(), "nothing is built when a condition fails");
    int relu = f.applyFirst("rank3", neg3);
    assertEquals(
        f.graph().lookup(new ENode(Op.RELU.id(), ENode.NO_ATTRS, new int[] {f.terms.leaf("b")})),
        relu);

    RunReport r = Runner.run(f.graph(), f.lemmas.rewrites(), ShippedLemmas.limits(10), () -> false);
    assertEquals(StopReason.SATURATED, r.stopReason());
    assertEquals(1, r.applied()[0]);
    assertEquals(0, r.applied()[1]);
    assertEquals(0, r.applied()[2]);
    assertNotEquals(f.graph().find(neg2), f.graph().find(f.add("(relu a)")));
  }

  @Test
  void aRightSideThatIsIllTypedForAMatchIsNoRewrite() {
    RuleFixture f = new RuleFixture("(rule r (neg ?x) (matmul ?x ?x))");
    int square = f.add("(neg a:f32[2,2])");
    int wide = f.add("(neg b:f32[2,3])");
    assertTrue(f.applyFirst("r", square) >= 0);
    assertEquals(-1, f.applyFirst("r", wide));
  }

  @Test
  void computedAttributesSpliceLists() {
    RuleFixture f =
        new RuleFixture(
            "(rule r (neg (reshape[?s...] ?x)) (reshape[(append ?s (list 1))] (neg ?x)))");
    int c = f.add("(neg (reshape[6] x:f32[2,3]))");
    assertEquals("(reshape[6 1] (neg x))", f.terms.nameOf(f.applyFirst("r", c)));
  }

  /**
   * Bug: {@code count} assumes its argument is a variable and casts it without a check, so {@code
   * (count 3)} or {@code (count (head ?xs))} compiles and then throws ClassCastException in the
   * middle of a run (RuleApplier only turns NoMatch and ArithmeticException into "no match").
   * Expected: a compile error ("count takes a list variable") or no match. Actual:
   * ClassCastException out of Runner.run.
   */
  @Test
  void countOfSomethingOtherThanAVariableIsNotACrash() {
    RuleFixture f;
    try {
      f = new RuleFixture("(rule r (neg ?x) ?x :when (> (count 3) 0))");
    } catch (InputException e) {
      return;
    }
    f.add("(neg a:f32[2])");
    RuleFixture g = f;
    org.junit.jupiter.api.Assertions.assertDoesNotThrow(
        () -> Runner.run(g.graph(), g.lemmas.rewrites(), ShippedLemmas.limits(5), () -> false));
  }

  /**
   * Bug: a {@code :let} variable is always compiled as one attribute, so a let whose value is a
   * list (such as {@code (permute-compose ?p ?q)}) cannot be used as attributes: {@code ?c} is
   * evaluated as one integer and the rule silently never applies, and {@code ?c...} is rejected
   * ("not a bound list of attributes"). Expected: {@code (permute[?c] ?x)} builds the permute of
   * the composed permutation. Actual: no rewrite.
   */
  @Test
  void aListValuedLetCanBeSplicedIntoAttributes() {
    RuleFixture f =
        new RuleFixture(
            "(rule pp (permute[?q...] (permute[?p...] ?x)) (permute[?c] ?x) :let ((?c (permute-compose ?p ?q))))");
    int c = f.add("(permute[0 2 1] (permute[1 0 2] x:f32[2,3,4]))");
    int built = f.applyFirst("pp", c);
    assertTrue(built >= 0, "the rule did not apply");
    assertEquals("(permute[1 2 0] x)", f.terms.nameOf(built));
  }
}
