package dev.entangle.rules;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.core.Op;
import dev.entangle.egraph.ENode;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What left sides match and what their variables bind. */
class RuleMatchingTest {
  private static final String RULES =
      String.join(
          "\n",
          "(ops un neg exp relu)",
          "(ops pair add mul)",
          "(ops both un pair)",
          "(rule prefix (concat[?d] ?xs... ?y) ?y)",
          "(rule suffix (concat[?d] ?y ?xs...) ?y)",
          "(rule middle (concat[?d] ?y ?xs... ?z) ?y)",
          "(rule two-lists (concat[?d] ?xs... ?ys...) (concat[?d] ?ys... ?xs...))",
          "(rule around (concat[?d] ?xs... (neg ?y) ?ys...) ?y)",
          "(rule nested (concat[?d] ?xs... (concat[?d] ?ys...)) (concat[?d] ?xs... ?ys...))",
          "(rule head-slice (slice[?d 0 ?e 1] ?x) ?x)",
          "(rule any-slice (slice[_ _ ?e _] ?x) ?x)",
          "(rule short-slice (slice[?d] ?x) ?x)",
          "(rule no-brackets (slice ?x) ?x)",
          "(rule keep (rsum[?k ?k] ?x) ?x)",
          "(rule dims (rsum[1 ?ds...] ?x) ?x)",
          "(rule same-perm (concat[?d] (permute[?p...] ?x) (permute[?p...] ?y)) ?x)",
          "(rule same-dim (concat[?d] (slice[?d _ _ _] ?x) ?rest...) ?x)",
          "(rule twice (add ?x ?x) ?x)",
          "(rule op-var (?f:un ?x) ?x)",
          "(rule op-var-attrs (?f:un[?a...] ?x) ?x)",
          "(rule nested-family (?f:both ?xs...) (?f ?xs...))");

  private final RuleFixture f = new RuleFixture(RULES);

  @Test
  void aListVariableBeforeAFixedOperandTakesThePrefix() {
    int c = f.add("(concat[0] a:f32[1,2] b:f32[1,2] c:f32[1,2])");
    assertEquals(List.of("d=0 xs=[a, b] y=c"), f.matches("prefix", c));
  }

  @Test
  void aListVariableAfterAFixedOperandTakesTheSuffix() {
    int c = f.add("(concat[0] a:f32[1,2] b:f32[1,2] c:f32[1,2])");
    assertEquals(List.of("d=0 y=a xs=[b, c]"), f.matches("suffix", c));
  }

  @Test
  void aListVariableBetweenFixedOperandsTakesTheMiddleEvenWhenEmpty() {
    assertEquals(
        List.of("d=1 y=a xs=[b, c] z=e"),
        f.matches("middle", f.add("(concat[1] a:f32[2,1] b:f32[2,1] c:f32[2,1] e:f32[2,1])")));
    assertEquals(List.of("d=1 y=a xs=[] z=e"), f.matches("middle", f.add("(concat[1] a e)")));
    assertEquals(List.of(), f.matches("middle", f.add("(concat[1] a)")));
  }

  @Test
  void twoListVariablesTryEverySplit() {
    int c = f.add("(concat[0] a:f32[1,2] b:f32[1,2])");
    assertEquals(
        List.of("d=0 xs=[] ys=[a, b]", "d=0 xs=[a] ys=[b]", "d=0 xs=[a, b] ys=[]"),
        f.matches("two-lists", c));
  }

  @Test
  void listVariablesAroundAPatternFindEveryPlaceItMatches() {
    int c = f.add("(concat[0] a:f32[1,2] (neg b:f32[1,2]) c:f32[1,2] (neg e:f32[1,2]))");
    assertEquals(
        List.of("d=0 xs=[a] y=b ys=[c, (neg e)]", "d=0 xs=[a, (neg b), c] y=e ys=[]"),
        f.matches("around", c));
  }

  @Test
  void aListVariableMayBeEmptyBeforeANestedPattern() {
    int c = f.add("(concat[0] (concat[0] a:f32[1,2] b:f32[1,2]))");
    assertEquals(List.of("d=0 xs=[] ys=[a, b]"), f.matches("nested", c));
    int other = f.add("(concat[1] (concat[0] a b))");
    assertEquals(List.of(), f.matches("nested", other), "?d must be the same on both concats");
  }

  @Test
  void attributeLiteralsMustBeEqualAndVariablesBindTheValue() {
    assertEquals(
        List.of("d=1 e=2 x=x"), f.matches("head-slice", f.add("(slice[1 0 2 1] x:f32[3,4])")));
    assertEquals(List.of(), f.matches("head-slice", f.add("(slice[1 1 2 1] x)")), "start is not 0");
    assertEquals(List.of(), f.matches("head-slice", f.add("(slice[1 0 4 2] x)")), "step is not 1");
  }

  @Test
  void anUnderscoreMatchesAnyAttribute() {
    assertEquals(List.of("e=4 x=x"), f.matches("any-slice", f.add("(slice[1 1 4 2] x:f32[3,4])")));
    assertEquals(List.of("e=3 x=x"), f.matches("any-slice", f.add("(slice[0 0 3 1] x)")));
  }

  @Test
  void theNumberOfAttributesMustMatchUnlessTheLastIsAList() {
    int s = f.add("(slice[1 1 4 2] x:f32[3,4])");
    assertEquals(List.of(), f.matches("short-slice", s));
    assertEquals(List.of("x=x"), f.matches("no-brackets", s), "no brackets: any attributes");
    assertEquals(List.of("ds=[0, 1] x=x"), f.matches("dims", f.add("(rsum[1 0 1] x)")));
    assertEquals(List.of("ds=[] x=x"), f.matches("dims", f.add("(rsum[1] x)")));
    assertEquals(List.of(), f.matches("dims", f.add("(rsum[0 0 1] x)")));
  }

  @Test
  void aRepeatedAttributeVariableMustTakeOneValue() {
    assertEquals(List.of("k=1 x=x"), f.matches("keep", f.add("(rsum[1 1] x:f32[3,4])")));
    assertEquals(List.of(), f.matches("keep", f.add("(rsum[0 1] x)")));
    assertEquals(
        List.of("d=1 x=x rest=[y]"),
        f.matches("same-dim", f.add("(concat[1] (slice[1 0 2 1] x:f32[3,4]) y:f32[3,1])")));
    assertEquals(List.of(), f.matches("same-dim", f.add("(concat[1] (slice[0 0 3 1] x) y)")));
  }

  @Test
  void aRepeatedListOfAttributesMustBeTheSameList() {
    assertEquals(
        List.of("d=1 p=[1, 0] x=a y=b"),
        f.matches(
            "same-perm", f.add("(concat[1] (permute[1 0] a:f32[3,2]) (permute[1 0] b:f32[2,2]))")));
    assertEquals(
        List.of(),
        f.matches("same-perm", f.add("(concat[1] (permute[1 0] a) (permute[0 1] c:f32[2,2]))")));
  }

  @Test
  void aRepeatedClassVariableMustBeOneClass() {
    assertEquals(List.of("x=a"), f.matches("twice", f.add("(add a:f32[2] a)")));
    int ab = f.add("(add a b:f32[2])");
    assertEquals(List.of(), f.matches("twice", ab));
    f.graph().union(f.terms.leaf("a"), f.terms.leaf("b"));
    f.graph().rebuild();
    assertEquals(List.of("x=a"), f.matches("twice", ab), "equal once a and b are one class");
  }

  @Test
  void anOperatorVariableMatchesEveryOperatorOfItsFamilyAndNoOther() {
    f.add("(neg a:f32[2])");
    f.add("(exp a)");
    f.add("(relu a)");
    f.add("(abs a)");
    f.add("(sigmoid a)");
    assertEquals(3, f.matchedClasses("op-var").size());
    assertEquals(List.of("f=exp[] x=a"), f.matches("op-var", f.add("(exp a)")));
    assertEquals(List.of(), f.matches("op-var", f.add("(abs a)")));
  }

  @Test
  void anOperatorVariableBindsTheOperatorWithItsAttributes() {
    RuleFixture g =
        new RuleFixture("(ops act gelu relu)\n(rule r (?f:act[?a...] (neg ?x)) (neg (?f ?x)))");
    int c = g.add("(gelu[1] (neg x:f32[2]))");
    assertEquals(List.of("f=gelu[1] a=[1] x=x"), g.matches("r", c));
    int built = g.applyFirst("r", c);
    assertEquals(
        g.graph()
            .lookup(
                new ENode(
                    Op.NEG.id(),
                    ENode.NO_ATTRS,
                    new int[] {
                      g.graph()
                          .lookup(
                              new ENode(
                                  Op.GELU.id(), new long[] {1}, new int[] {g.terms.leaf("x")}))
                    })),
        built,
        "the right side rebuilds gelu with its attribute 1");
  }

  @Test
  void aFamilyMayIncludeAnotherFamily() {
    assertEquals(
        List.of("f=add[] xs=[a, b]"), f.matches("nested-family", f.add("(add a:f32[2] b:f32[2])")));
    assertEquals(List.of("f=relu[] xs=[a]"), f.matches("nested-family", f.add("(relu a)")));
    assertEquals(List.of(), f.matches("nested-family", f.add("(sub a b)")));
  }

  @Test
  void matchingSeesEveryNodeOfAClass() {
    int n = f.add("(neg a:f32[2])");
    int e = f.add("(exp b:f32[2])");
    f.graph().union(n, e);
    f.graph().rebuild();
    assertEquals(List.of("f=neg[] x=a", "f=exp[] x=b"), f.matches("op-var", n));
  }

  @Test
  void theMatcherFollowsChildrenThroughTheirClasses() {
    int c = f.add("(concat[0] a:f32[1,2] b:f32[1,2])");
    int n = f.add("(neg e:f32[1,2])");
    f.graph().union(f.terms.leaf("b"), n);
    f.graph().rebuild();
    assertTrue(
        f.matches("around", c).contains("d=0 xs=[a] y=e ys=[]"), f.matches("around", c).toString());
  }

  /**
   * Bug: an operator variable written twice on a left side, as in {@code (add (?f:un ?x) (?f:un
   * ?y))}, is declared twice; the second declaration replaces the first in the rule's slot table,
   * so the rule has fewer slot names than slots and matching throws ArrayIndexOutOfBoundsException
   * in the middle of a run. Expected: either the two uses must bind one operator (as repeated class
   * and attribute variables do), or the compiler rejects the rule ("?f is already bound"). Actual:
   * ArrayIndexOutOfBoundsException from RuleMatcher.
   */
  @Test
  void aRepeatedOperatorVariableBindsOneOperator() {
    RuleFixture g =
        new RuleFixture(
            "(ops un neg exp)\n(rule same-op (add (?f:un ?x) (?f:un ?y)) (?f (add ?x ?y)))");
    int mixed = g.add("(add (exp a:f32[2]) (neg b:f32[2]))");
    int same = g.add("(add (exp a) (exp b))");
    assertDoesNotThrow(() -> g.matches("same-op", mixed));
    assertEquals(List.of(), g.matches("same-op", mixed));
    assertEquals(List.of("f=exp[] x=a y=b"), g.matches("same-op", same));
  }
}
