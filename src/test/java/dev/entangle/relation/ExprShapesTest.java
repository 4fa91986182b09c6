package dev.entangle.relation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.graph.Dim;
import dev.entangle.graph.TensorType;
import dev.entangle.util.InputException;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class ExprShapesTest {
  private static final String WHERE = "ri.json: relations[0] (gs \"t\")";

  /** Leaf types: rK.NAME has the type of NAME below, whatever K. */
  private static final Map<String, TensorType> TYPES =
      Map.of(
          "a", TensorType.of("float32", 4, 8),
          "b", TensorType.of("float32", 4, 16),
          "c", TensorType.of("float32", 2, 3, 5),
          "h", TensorType.of("float16", 4, 8),
          "one", TensorType.of("float32", 4, 1, 8),
          "s", TensorType.of("float32"),
          "sym", new TensorType(List.of(new Dim.Sym("s0"), Dim.of(8)), "float32"));

  private static final Function<Expr.Tensor, TensorType> LEAVES = t -> TYPES.get(t.name());

  private static TensorType shapeOf(String expr) {
    return ExprShapes.shape(ExprParser.parse(expr), LEAVES, WHERE);
  }

  private static void hasShape(String expr, long... sizes) {
    assertEquals(dims(sizes), shapeOf(expr).shape(), expr);
  }

  private static List<Dim> dims(long... sizes) {
    return TensorType.of("x", sizes).shape();
  }

  private static void normalizes(String expr, String expected) {
    assertEquals(
        ExprParser.parse(expected), ExprShapes.normalize(ExprParser.parse(expr), LEAVES), expr);
  }

  private static String error(String expr) {
    InputException e = assertThrows(InputException.class, () -> shapeOf(expr), expr);
    assertTrue(e.getMessage().startsWith(WHERE + ": in "), e.getMessage());
    return e.getMessage();
  }

  private static void assertContains(String message, String... parts) {
    for (String p : parts) {
      assertTrue(message.contains(p), () -> "expected <" + p + "> in: " + message);
    }
  }

  @Test
  void shapes() {
    hasShape("r0.a", 4, 8);
    hasShape("concat(r0.a, r1.a, dim=0)", 8, 8);
    hasShape("concat(r0.a, r1.b, dim=1)", 4, 24);
    hasShape("concat(r0.a, r1.b, r2.a, dim=-1)", 4, 32);
    hasShape("slice(r0.a, dim=1, start=2, end=6)", 4, 4);
    hasShape("slice(r0.a, dim=1, start=0, end=9223372036854775807)", 4, 8);
    hasShape("slice(r0.a, dim=-1, start=-3, end=8)", 4, 3);
    hasShape("slice(r0.a, dim=1, start=6, end=2)", 4, 0);
    hasShape("slice(r0.a, dim=1, start=-100, end=-100)", 4, 0);
    hasShape("slice(r0.a, dim=1, start=1, end=8, step=2)", 4, 4);
    hasShape("slice(r0.a, dim=1, start=0, end=8, step=3)", 4, 3);
    hasShape("slice(r0.a, dim=1, start=0, end=8, step=9223372036854775807)", 4, 1);
    hasShape("sum(r0.a, r1.a)", 4, 8);
    hasShape("max(r0.c)", 2, 3, 5);
    hasShape("transpose(r0.c, 0, -1)", 5, 3, 2);
    hasShape("permute(r0.c, [2, 0, 1])", 5, 2, 3);
    hasShape("permute(r0.c, [-1, 0, -2])", 5, 2, 3);
    hasShape("reshape(r0.c, [6, 5])", 6, 5);
    hasShape("reshape(r0.c, [-1, 10])", 3, 10);
    hasShape("reshape(r0.s, [1, 1])", 1, 1);
    hasShape("reshape(r0.a, [-1])", 32);
    hasShape("squeeze(r0.one, 1)", 4, 8);
    hasShape("squeeze(r0.one, -2)", 4, 8);
    hasShape("squeeze(r0.one, 0)", 4, 1, 8);
    hasShape("unsqueeze(r0.a, 0)", 1, 4, 8);
    hasShape("unsqueeze(r0.a, -1)", 4, 8, 1);
    hasShape("unsqueeze(r0.s, 0)", 1);
    hasShape("squeeze(r0.s, -1)");
    hasShape("transpose(r0.s, 0, -1)");
  }

  @Test
  void dtypeIsKept() {
    assertEquals("float16", shapeOf("transpose(r0.h, 0, 1)").dtype());
  }

  @Test
  void symbolicSizesPassWhereNoArithmeticIsNeeded() {
    assertEquals(List.of(Dim.of(8), new Dim.Sym("s0")), shapeOf("transpose(r0.sym, 0, 1)").shape());
    assertEquals(
        List.of(new Dim.Sym("s0"), Dim.of(16)), shapeOf("concat(r0.sym, r1.sym, dim=1)").shape());
    assertEquals(List.of(new Dim.Sym("s0"), Dim.of(8)), shapeOf("squeeze(r0.sym, 0)").shape());
    assertContains(error("concat(r0.sym, r1.sym, dim=0)"), "the size s0 is symbolic");
    assertContains(error("reshape(r0.sym, [-1])"), "the size s0 is symbolic");
  }

  @Test
  void normalize() {
    normalizes("concat(r0.a, r1.a, dim=-1)", "concat(r0.a, r1.a, dim=1)");
    normalizes(
        "slice(r0.a, dim=-1, start=-3, end=9223372036854775807)",
        "slice(r0.a, dim=1, start=5, end=8)");
    normalizes(
        "slice(r0.a, dim=0, start=3, end=1, step=2)", "slice(r0.a, dim=0, start=3, end=3, step=2)");
    normalizes("slice(r0.a, dim=0, start=-100, end=-1)", "slice(r0.a, dim=0, start=0, end=3)");
    normalizes("transpose(r0.c, -1, -3)", "transpose(r0.c, 2, 0)");
    normalizes("permute(r0.c, [-1, 0, 1])", "permute(r0.c, [2, 0, 1])");
    normalizes("reshape(r0.c, [-1, 5])", "reshape(r0.c, [6, 5])");
    normalizes("squeeze(r0.one, -2)", "squeeze(r0.one, 1)");
    normalizes("unsqueeze(r0.a, -1)", "unsqueeze(r0.a, 2)");
    normalizes(
        "sum(transpose(r0.a, -1, 0), transpose(r1.a, 1, 0))",
        "sum(transpose(r0.a, 1, 0), transpose(r1.a, 1, 0))");
    normalizes("r0.a", "r0.a");
  }

  @Test
  void concatMismatches() {
    assertContains(
        error("concat(r0.a, r1.b, dim=0)"),
        "in concat(r0.a, r1.b, dim=0): the parts differ off the concat dim 0",
        "r0.a has shape [4, 8] but r1.b has shape [4, 16]");
    assertContains(error("concat(r0.a, r1.c, dim=0)"), "the parts differ in rank");
    assertContains(
        error("concat(r0.a, r1.h, dim=0)"),
        "the parts differ in dtype: r0.a has dtype float32 but r1.h has dtype float16");
    assertContains(error("concat(r0.s, r1.s, dim=0)"), "cannot concat 0-d tensors");
  }

  @Test
  void reduceMismatches() {
    assertContains(
        error("sum(r0.a, r1.b)"),
        "in sum(r0.a, r1.b): the operands differ in shape: r0.a has shape [4, 8] but r1.b has"
            + " shape [4, 16]; sum takes operands of one shape (no broadcasting)");
    assertContains(error("max(r0.a, r1.h)"), "the operands differ in dtype");
  }

  @Test
  void dimsOutOfRange() {
    assertContains(
        error("concat(r0.a, r1.a, dim=2)"),
        "dim 2 is out of range for r0.a, which has shape [4, 8]",
        "dims go from -2 to 1");
    assertContains(error("transpose(r0.a, 0, -3)"), "dim -3 is out of range");
    assertContains(error("squeeze(r0.a, 5)"), "dim 5 is out of range");
    assertContains(error("unsqueeze(r0.a, 4)"), "dim 4 is out of range", "dims go from -3 to 2");
    assertContains(error("slice(r0.a, dim=3, start=0, end=1)"), "dim 3 is out of range");
    assertContains(error("permute(r0.a, [0, 2])"), "dim 2 is out of range");
    assertContains(error("transpose(r0.s, 0, 1)"), "dim 1 is out of range");
  }

  @Test
  void otherMismatches() {
    assertContains(
        error("reshape(r0.a, [3, 10])"),
        "in reshape(r0.a, [3, 10]): r0.a has shape [4, 8] (32 elements) but [3, 10] holds 30");
    assertContains(error("reshape(r0.a, [-1, 5])"), "cannot be viewed as [-1, 5]");
    assertContains(error("reshape(r0.a, [-1, 0])"), "cannot be viewed as [-1, 0]");
    assertContains(error("reshape(r0.a, [-1, -1])"), "more than one size is -1");
    assertContains(error("reshape(r0.a, [-2, -16])"), "the size -2 is negative");
    assertContains(error("reshape(r0.a, [9223372036854775807, 2])"), "overflows");
    assertContains(
        error("slice(r0.a, dim=0, start=0, end=2, step=0)"), "the step is 0", "must be positive");
    assertContains(error("slice(r0.s, dim=0, start=0, end=2)"), "cannot slice a 0-d tensor");
    assertContains(error("permute(r0.a, [0])"), "permute lists 1 dims but r0.a has shape [4, 8]");
    assertContains(error("permute(r0.a, [1, -1])"), "dim 1 appears twice");
    assertContains(
        error("concat(r0.a, r1.nothing, dim=0)"), "in r1.nothing: the tensor has no known type");
  }

  @Test
  void theInnermostFailingSubexpressionIsNamed() {
    String m = error("concat(transpose(sum(r0.a, r1.b), 0, 1), r1.a, dim=0)");
    assertTrue(m.startsWith(WHERE + ": in sum(r0.a, r1.b): "), m);
    String outer = error("concat(transpose(r0.a, -1, 0), r1.a, dim=0)");
    assertContains(
        outer,
        "in concat(transpose(r0.a, -1, 0), r1.a, dim=0)",
        "transpose(r0.a, -1, 0) has shape [8, 4] but r1.a has shape [4, 8]");
  }

  @Test
  void leafErrorsPassThrough() {
    InputException e =
        assertThrows(
            InputException.class,
            () ->
                ExprShapes.shape(
                    ExprParser.parse("sum(r0.a, r5.a)"),
                    t -> {
                      if (t.rank() == 5) {
                        throw new InputException("no rank 5");
                      }
                      return TYPES.get(t.name());
                    },
                    WHERE));
    assertEquals("no rank 5", e.getMessage());
  }
}
