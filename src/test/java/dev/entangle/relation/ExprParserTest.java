package dev.entangle.relation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ExprParserTest {
  static Expr.Tensor gs(String name) {
    return new Expr.Tensor(null, name);
  }

  static Expr.Tensor gd(int rank, String name) {
    return new Expr.Tensor(rank, name);
  }

  private static void parses(String text, Expr expected) {
    assertEquals(expected, ExprParser.parse(text), text);
  }

  /**
   * Asserts that {@code text} fails at {@code column} (1-based) with a reason holding {@code why}.
   */
  private static void fails(String text, int column, String why) {
    ParseError e = assertThrows(ParseError.class, () -> ExprParser.parse(text), text);
    assertTrue(e.reason().contains(why), () -> "expected <" + why + "> in: " + e.reason());
    assertEquals(column, e.position() + 1, () -> text + ": " + e.getMessage());
  }

  @Test
  void tensorReferences() {
    parses("x", gs("x"));
    parses("  mlp.fc1.weight ", gs("mlp.fc1.weight"));
    parses("_a1", gs("_a1"));
    parses("r0.x", gd(0, "x"));
    parses("r12.layers.0.w", gd(12, "layers.0.w"));
    parses("r007.x", gd(7, "x"));
    parses("r1.r0.y", gd(1, "r0.y"));
    parses("r0", gs("r0"));
    parses("rank0.x", gs("rank0.x"));
    parses("`weird name (1)`", gs("weird name (1)"));
    parses("`r0.x`", gs("r0.x"));
    parses("r3.`a b`", gd(3, "a b"));
    parses("sum", gs("sum"));
  }

  @Test
  void concatForms() {
    Expr expected = new Expr.Concat(List.of(gd(0, "a"), gd(1, "a")), 0);
    parses("concat(r0.a, r1.a, dim=0)", expected);
    parses("concat(r0.a, r1.a, 0)", expected);
    parses("concat( r0.a ,r1.a,dim = 0 )", expected);
    parses("concat(r0.a, dim=-1)", new Expr.Concat(List.of(gd(0, "a")), -1));
  }

  @Test
  void sliceForms() {
    Expr expected = new Expr.Slice(gd(0, "x"), 0, 0, 128, 1);
    parses("slice(r0.x, dim=0, start=0, end=128)", expected);
    parses("slice(r0.x, 0, 0, 128)", expected);
    parses("slice(r0.x, 0, start=0, end=128)", expected);
    parses("slice(r0.x, end=128, start=0, dim=0)", expected);
    parses(
        "slice(r0.x, dim=1, start=-4, end=9223372036854775807, step=2)",
        new Expr.Slice(gd(0, "x"), 1, -4, Long.MAX_VALUE, 2));
    parses("slice(r0.x, 1, 0, 8, 3)", new Expr.Slice(gd(0, "x"), 1, 0, 8, 3));
  }

  @Test
  void otherFunctions() {
    parses(
        "sum(r0.a, r1.a)", new Expr.Reduce(Expr.ReduceKind.SUM, List.of(gd(0, "a"), gd(1, "a"))));
    parses("max(a)", new Expr.Reduce(Expr.ReduceKind.MAX, List.of(gs("a"))));
    parses(
        "min(a, b, c)", new Expr.Reduce(Expr.ReduceKind.MIN, List.of(gs("a"), gs("b"), gs("c"))));
    parses("transpose(e, 0, 1)", new Expr.Transpose(gs("e"), 0, 1));
    parses("transpose(e, dim0=-1, dim1=0)", new Expr.Transpose(gs("e"), -1, 0));
    parses("permute(e, [1,0])", new Expr.Permute(gs("e"), List.of(1, 0)));
    parses("permute(e, dims=[2, -1, 0])", new Expr.Permute(gs("e"), List.of(2, -1, 0)));
    parses("reshape(e, [2,-1])", new Expr.Reshape(gs("e"), List.of(2L, -1L)));
    parses("reshape(e, shape=[])", new Expr.Reshape(gs("e"), List.of()));
    parses("squeeze(e, 0)", new Expr.Squeeze(gs("e"), 0));
    parses("unsqueeze(e, dim=-1)", new Expr.Unsqueeze(gs("e"), -1));
  }

  @Test
  void nesting() {
    parses(
        "concat(slice(r0.kv, dim=0, start=0, end=128), transpose(sum(r0.a, r1.a), 0, 1),"
            + " dim=0)",
        new Expr.Concat(
            List.of(
                new Expr.Slice(gd(0, "kv"), 0, 0, 128, 1),
                new Expr.Transpose(
                    new Expr.Reduce(Expr.ReduceKind.SUM, List.of(gd(0, "a"), gd(1, "a"))), 0, 1)),
            0));
    parses(
        "sum(dim, r0.dim)", new Expr.Reduce(Expr.ReduceKind.SUM, List.of(gs("dim"), gd(0, "dim"))));
  }

  @Test
  void unknownFunction() {
    fails("matmul(a, b)", 1, "unknown function 'matmul'");
    fails("concat(a, add(b, c), dim=0)", 11, "unknown function 'add'");
  }

  @Test
  void missingArguments() {
    fails("concat(r0.a, r1.a)", 18, "concat is missing dim");
    fails("slice(x, dim=0, start=0)", 24, "slice is missing end");
    fails("transpose(x, 0)", 15, "transpose is missing dim1");
    fails("concat()", 8, "concat needs a tensor expression");
    fails("squeeze(x)", 10, "squeeze is missing dim");
  }

  @Test
  void tooManyArguments() {
    fails("transpose(x, 0, 1, 2)", 20, "too many arguments");
    fails("slice(x, 0, 0, 8, 1, 1)", 22, "too many arguments");
    fails("sum(a, b, 0)", 11, "too many arguments");
    fails("transpose(a, b, 0, 1)", 14, "transpose takes one tensor expression");
  }

  @Test
  void wrongArgumentKinds() {
    fails("concat(a, b, dim=[0])", 18, "dim must be an integer, not a list");
    fails("permute(x, 1, 0)", 12, "dims must be a list of integers, not an integer");
    fails("reshape(x, 4)", 12, "shape must be a list");
    fails("concat(a, 0, b)", 14, "a tensor expression after the integer arguments");
    fails("squeeze(0, x)", 9, "squeeze starts with a tensor expression, not an integer");
    fails("concat(a, dim=b)", 15, "expected an integer or a list of integers after 'dim='");
  }

  @Test
  void keywordMistakes() {
    fails("concat(a, b, axis=0)", 14, "concat has no argument 'axis'");
    fails("concat(a, b, 0, dim=1)", 17, "dim is given twice");
    fails("slice(x, dim=0, 0, 8)", 17, "a positional argument after a keyword argument");
  }

  @Test
  void lexicalMistakes() {
    fails("concat(r0.a r1.a, dim=0)", 13, "expected ',' or ')'");
    fails("concat(r0.a, r1.a, dim=0", 25, "expected ',' or ')'");
    fails("concat(r0.a, , dim=0)", 14, "expected an expression");
    fails("r0.x r1.x", 6, "after the end of the expression");
    fails("`unterminated", 1, "unterminated backquoted name");
    fails("``", 1, "empty backquoted name");
    fails("r0.", 4, "expected a tensor name after 'r0.'");
    fails("slice(x, 0, 1.5, 8)", 13, "expected an integer, found '1.5'");
    fails("slice(x, 0, 0, 99999999999999999999)", 16, "does not fit in 64 bits");
    fails("r99999999999.x", 2, "rank 99999999999 is too large");
    fails("concat(a, b, dim=99999999999)", 18, "dim 99999999999 is out of range");
    fails("permute(x, [0 1])", 15, "expected ',' or ']'");
    fails("permute(x, [0, a])", 16, "expected an integer in the list");
    fails("", 1, "the text ends here");
    fails("3", 1, "expected an expression");
  }
}
