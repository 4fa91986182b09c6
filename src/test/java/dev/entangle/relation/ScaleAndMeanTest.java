package dev.entangle.relation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.graph.TensorType;
import dev.entangle.util.InputException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The clean functions scale(e, P, Q) and mean(e1, ..., en): syntax, printing, types. */
class ScaleAndMeanTest {
  private static final TensorType F32 = TensorType.of("float32", 2, 3);

  private static Expr.Tensor gd(int rank, String name) {
    return new Expr.Tensor(rank, name);
  }

  @Test
  void parsesScaleWithAndWithoutADenominator() {
    assertEquals(new Expr.Scale(gd(0, "g"), 1, 2), ExprParser.parse("scale(r0.g, 1, 2)"));
    assertEquals(new Expr.Scale(gd(0, "g"), 3, 1), ExprParser.parse("scale(r0.g, 3)"));
    assertEquals(new Expr.Scale(gd(0, "g"), -1, 4), ExprParser.parse("scale(r0.g, num=-1, den=4)"));
    assertEquals(
        new Expr.Reduce(Expr.ReduceKind.MEAN, List.of(gd(0, "g"), gd(1, "g"))),
        ExprParser.parse("mean(r0.g, r1.g)"));
  }

  @Test
  void printsWhatItParses() {
    for (String text :
        List.of(
            "scale(r0.g, 1, 2)",
            "scale(r0.g, 3)",
            "mean(r0.g, r1.g, r2.g)",
            "scale(sum(r0.g, r1.g), -1, 8)",
            "concat(mean(r0.a, r1.a), scale(r0.b, 1, 3), dim=0)")) {
      assertEquals(text, ExprPrinter.print(ExprParser.parse(text)));
    }
  }

  @Test
  void malformedCallsSayHowToWriteThem() {
    ParseError e = assertThrows(ParseError.class, () -> ExprParser.parse("scale(r0.g)"));
    assertTrue(e.reason().contains("scale is missing num"), e.reason());
    e = assertThrows(ParseError.class, () -> ExprParser.parse("scale(r0.g, r1.g, 2)"));
    assertTrue(e.reason().contains("takes one tensor expression"), e.reason());
  }

  @Test
  void aScaleHasItsOperandsTypeAndAFactorInLowestTerms() {
    Expr e = ExprParser.parse("scale(r0.g, 2, -4)");
    assertEquals(F32, ExprShapes.shape(e, t -> F32, "test"));
    assertEquals(new Expr.Scale(gd(0, "g"), -1, 2), ExprShapes.normalize(e, t -> F32));
    InputException zero =
        assertThrows(
            InputException.class,
            () -> ExprShapes.normalize(ExprParser.parse("scale(r0.g, 1, 0)"), t -> F32));
    assertTrue(zero.getMessage().contains("denominator is 0"), zero.getMessage());
  }

  @Test
  void aMeanTakesOperandsOfOneShape() {
    assertEquals(F32, ExprShapes.shape(ExprParser.parse("mean(r0.g, r1.g)"), t -> F32, "test"));
    TensorType other = TensorType.of("float32", 3, 2);
    InputException e =
        assertThrows(
            InputException.class,
            () ->
                ExprShapes.shape(
                    ExprParser.parse("mean(r0.g, r1.g)"),
                    t -> t.rank() == 0 ? F32 : other,
                    "test"));
    assertTrue(e.getMessage().contains("differ in shape"), e.getMessage());
  }
}
