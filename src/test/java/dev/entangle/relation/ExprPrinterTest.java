package dev.entangle.relation;

import static dev.entangle.relation.ExprParserTest.gd;
import static dev.entangle.relation.ExprParserTest.gs;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ExprPrinterTest {
  private static void prints(Expr e, String expected) {
    assertEquals(expected, ExprPrinter.print(e));
    assertEquals(e, ExprParser.parse(expected));
  }

  @Test
  void canonicalForms() {
    prints(new Expr.Concat(List.of(gd(0, "a"), gd(1, "a")), 0), "concat(r0.a, r1.a, dim=0)");
    prints(new Expr.Slice(gd(0, "x"), 0, 0, 128, 1), "slice(r0.x, dim=0, start=0, end=128)");
    prints(
        new Expr.Slice(gd(0, "x"), -1, -8, Long.MAX_VALUE, 2),
        "slice(r0.x, dim=-1, start=-8, end=9223372036854775807, step=2)");
    prints(new Expr.Reduce(Expr.ReduceKind.SUM, List.of(gs("a"), gs("b"))), "sum(a, b)");
    prints(new Expr.Reduce(Expr.ReduceKind.MAX, List.of(gs("a"))), "max(a)");
    prints(new Expr.Reduce(Expr.ReduceKind.MIN, List.of(gs("a"), gs("b"))), "min(a, b)");
    prints(new Expr.Transpose(gs("e"), 0, 1), "transpose(e, 0, 1)");
    prints(new Expr.Permute(gs("e"), List.of(1, 0)), "permute(e, [1, 0])");
    prints(new Expr.Reshape(gs("e"), List.of(2L, 3L)), "reshape(e, [2, 3])");
    prints(new Expr.Reshape(gs("e"), List.of()), "reshape(e, [])");
    prints(new Expr.Squeeze(gs("e"), 0), "squeeze(e, 0)");
    prints(new Expr.Unsqueeze(gs("e"), -1), "unsqueeze(e, -1)");
  }

  @Test
  void backquotesNamesThatAreNotPlain() {
    prints(gs("weird name"), "`weird name`");
    prints(gs("r0.x"), "`r0.x`");
    prints(gs("0x"), "`0x`");
    prints(gs("a-b"), "`a-b`");
    prints(gs("r0"), "r0");
    prints(gs("mlp.fc1.weight"), "mlp.fc1.weight");
    prints(gd(1, "a b"), "r1.`a b`");
    prints(gd(0, "r1.y"), "r0.r1.y");
    prints(gd(2, "9"), "r2.`9`");
  }

  @Test
  void printingCanonicalizesPositionalForms() {
    assertEquals(
        "slice(r0.x, dim=0, start=0, end=128)",
        ExprPrinter.print(ExprParser.parse("slice( r0.x,0 ,0,128 ,1)")));
    assertEquals(
        "concat(r0.a, r1.a, dim=1)", ExprPrinter.print(ExprParser.parse("concat(r0.a,r1.a,1)")));
    assertEquals("r7.x", ExprPrinter.print(ExprParser.parse("r07.x")));
  }

  @Test
  void randomExpressionsRoundTrip() {
    Random random = new Random(20240611);
    for (int i = 0; i < 3000; i++) {
      Expr e = randomExpr(random, 4);
      String text = ExprPrinter.print(e);
      assertEquals(e, ExprParser.parse(text), text);
      assertEquals(text, ExprPrinter.print(ExprParser.parse(text)));
    }
  }

  private static final String[] NAMES = {
    "x",
    "w_out",
    "layers.0.attn",
    "r0.y",
    "sum",
    "concat",
    "dim",
    "a b",
    "weird(name)",
    "0start",
    "_",
    "r",
    "r1",
    "名前",
    "x-y",
    "end=3",
    "t,",
    "[",
    "r12.`",
    "a.",
    ".b"
  };

  private static Expr randomExpr(Random r, int depth) {
    int kind = depth == 0 ? 0 : r.nextInt(10);
    switch (kind) {
      case 0:
        {
          String name = NAMES[r.nextInt(NAMES.length)].replace("`", "");
          return r.nextBoolean()
              ? new Expr.Tensor(null, name)
              : new Expr.Tensor(r.nextInt(17), name);
        }
      case 1:
        return new Expr.Concat(operands(r, depth), smallInt(r));
      case 2:
        return new Expr.Slice(
            randomExpr(r, depth - 1),
            smallInt(r),
            r.nextLong(),
            r.nextLong(),
            r.nextInt(3) == 0 ? 1 : r.nextLong());
      case 3:
        return new Expr.Reduce(Expr.ReduceKind.values()[r.nextInt(3)], operands(r, depth));
      case 4:
        return new Expr.Transpose(randomExpr(r, depth - 1), smallInt(r), smallInt(r));
      case 5:
        {
          List<Integer> dims = new ArrayList<>();
          for (int i = r.nextInt(5); i > 0; i--) {
            dims.add(smallInt(r));
          }
          return new Expr.Permute(randomExpr(r, depth - 1), dims);
        }
      case 6:
        {
          List<Long> sizes = new ArrayList<>();
          for (int i = r.nextInt(5); i > 0; i--) {
            sizes.add(r.nextBoolean() ? r.nextLong() : (long) r.nextInt(9) - 1);
          }
          return new Expr.Reshape(randomExpr(r, depth - 1), sizes);
        }
      case 7:
        return new Expr.Squeeze(randomExpr(r, depth - 1), smallInt(r));
      case 8:
        return new Expr.Unsqueeze(randomExpr(r, depth - 1), smallInt(r));
      default:
        return randomExpr(r, 0);
    }
  }

  private static List<Expr> operands(Random r, int depth) {
    List<Expr> out = new ArrayList<>();
    for (int i = 1 + r.nextInt(3); i > 0; i--) {
      out.add(randomExpr(r, depth - 1));
    }
    return out;
  }

  private static int smallInt(Random r) {
    return r.nextInt(10) == 0 ? r.nextInt() : r.nextInt(9) - 4;
  }
}
