package dev.entangle.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.core.Dtype;
import dev.entangle.core.TypeInfo;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The lemma-case syntax and the term syntax its sides are written in. */
class LemmaCaseTest {
  @Test
  void readsPositiveAndNegativeCasesWithTheirLines() {
    List<LemmaCase> cases =
        LemmaCase.parse(
            "t.cases",
            String.join(
                "\n",
                "# header",
                "",
                "concat-single: (concat[0] x:f32[2]) => x",
                "slice-full: (slice[0 0 2 1] x:f32[2])",
                "    !=> (neg x)",
                ""));
    assertEquals(2, cases.size());
    assertEquals(
        new LemmaCase("t.cases", 3, "concat-single", true, "(concat[0] x:f32[2])", "x"),
        cases.get(0));
    assertEquals(
        new LemmaCase("t.cases", 4, "slice-full", false, "(slice[0 0 2 1] x:f32[2])", "(neg x)"),
        cases.get(1));
    assertEquals("t.cases:4", cases.get(1).where());
    LemmaCase given =
        LemmaCase.parse("t.cases", "r: a:f32[2] => b:f32[2] given (neg a) = (neg b)").get(0);
    assertEquals("b:f32[2]", given.right());
    assertEquals(List.of("(neg a)", "(neg b)"), List.of(given.given()));
    assertEquals("r: a:f32[2] => b:f32[2] given (neg a) = (neg b)", given.toString());
    assertEquals("slice-full: (slice[0 0 2 1] x:f32[2]) !=> (neg x)", cases.get(1).toString());
  }

  @Test
  void malformedCasesNameTheirLine() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> LemmaCase.parse("t.cases", "\nr: (neg x:f32[2]) x"));
    assertTrue(
        e.getMessage().startsWith("t.cases:2: expected exactly one ' => ' or ' !=> '"),
        e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class, () -> LemmaCase.parse("t.cases", "r: a => b => c"));
    assertTrue(e.getMessage().startsWith("t.cases:1: expected exactly one"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class, () -> LemmaCase.parse("t.cases", "(neg x) => x"));
    assertTrue(
        e.getMessage().startsWith("t.cases:1: expected 'lemma-name: LEFT => RIGHT'"),
        e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> LemmaCase.parse("t.cases", "  => x"));
    assertTrue(e.getMessage().startsWith("t.cases:1: a continuation line"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class, () -> LemmaCase.parse("t.cases", "r: a => b given c"));
    assertTrue(e.getMessage().startsWith("t.cases:1: expected 'given A = B'"), e.getMessage());
  }

  @Test
  void termsDeclareLeavesOnceAndShareThem() {
    TermReader t = new TermReader();
    int a = t.add("(add x:f32[2,3] (neg x))");
    assertEquals(TypeInfo.tensor(new long[] {2, 3}, Dtype.FLOAT32.code()), t.graph().data(a));
    assertEquals(t.leaf("x"), t.add("x"));
    assertEquals(
        t.leaf("x"),
        t.add("x:f32[2,3]"),
        "a repeated declaration of the same type is the same leaf");
    assertEquals(Dtype.INT64.code(), t.graph().data(t.add("i:i64[]")).dtype());
    assertEquals(0, t.graph().data(t.add("i")).rank());
  }

  @Test
  void attributesAreIntegersFloatsAndDtypes() {
    TermReader t = new TermReader();
    int s = t.add("(scalar[0.5 bf16])");
    assertEquals(0.5, t.graph().data(s).constant());
    assertEquals(Dtype.code("bfloat16"), t.graph().data(s).dtype());
    assertEquals(Dtype.BOOL.code(), t.graph().data(t.add("(cast[bool] x:f32[2])")).dtype());
    assertEquals(
        1e-5,
        Double.longBitsToDouble(
            t.graph().nodes(t.add("(ln_normalize[1 1e-05] x)")).get(0).attr(1)));
  }

  @Test
  void badTermsAreExplained() {
    assertMessage("(frob x:f32[2])", "unknown operator 'frob'");
    assertMessage("(neg y)", "leaf 'y' is used before it is declared");
    assertMessage("(add x:f32[2] x:f32[3])", "leaf 'x' was declared as float32[2] before");
    assertMessage(
        "(add x:f32[2] y:f32[3])", "ill-typed term: add of operands with shapes [2] and [3]");
    assertMessage("(neg x:q9[2])", "unknown dtype 'q9'");
    assertMessage("(neg x:f32)", "a declared leaf has a shape");
    assertMessage("(neg x:f32[2]", "this '(' is never closed");
    assertMessage(
        "(slice[0 a 1 1] x:f32[2])", "an attribute is an integer, a float such as 0.5 or a dtype");
    assertMessage("(neg x:f32[2]) y", "unexpected text after the term");
  }

  @Test
  void namesOfClassesAreLeavesOrTerms() {
    TermReader t = new TermReader();
    int c = t.add("(concat[1] (slice[1 0 1 1] x:f32[2,3]) y:f32[2,4])");
    assertEquals("(concat[1] (slice[1 0 1 1] x) y)", t.nameOf(c));
    assertEquals("y", t.nameOf(t.leaf("y")));
    assertFalse(t.nameOf(c).startsWith("c"));
  }

  private static void assertMessage(String term, String expected) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> new TermReader().add(term));
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }
}
