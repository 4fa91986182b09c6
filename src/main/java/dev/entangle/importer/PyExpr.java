package dev.entangle.importer;

import java.math.BigInteger;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** An expression of the Python subset that torch.fx prints, as read (never evaluated). */
sealed interface PyExpr {

  /** Where the expression is: character offsets in the file and its first line. */
  record Span(int start, int end, int line) {
    Span to(Span last) {
      return new Span(start, last.end, line);
    }
  }

  Span span();

  record Name(String id, Span span) implements PyExpr {}

  /** {@code value.attr}. */
  record Attribute(PyExpr value, String attr, Span span) implements PyExpr {}

  /** {@code func(args, key = value, ...)}; keyword arguments in the order written. */
  record Call(PyExpr func, List<PyExpr> args, Map<String, PyExpr> kwargs, Span span)
      implements PyExpr {
    public Call {
      args = List.copyOf(args);
      kwargs = Collections.unmodifiableMap(new LinkedHashMap<>(kwargs));
    }
  }

  /** {@code value[index]}. */
  record Subscript(PyExpr value, PyExpr index, Span span) implements PyExpr {}

  record IntLit(BigInteger value, Span span) implements PyExpr {}

  record FloatLit(double value, Span span) implements PyExpr {}

  record StrLit(String value, Span span) implements PyExpr {}

  /** {@code None}, {@code True} or {@code False}. */
  record Constant(String word, Span span) implements PyExpr {}

  /** A list {@code [..]} or a tuple {@code (..)} / {@code a, b}. */
  record Sequence(List<PyExpr> items, boolean tuple, Span span) implements PyExpr {
    public Sequence {
      items = List.copyOf(items);
    }
  }

  /**
   * A binary operation, comparison or boolean operation; {@code op} as written, e.g. {@code //}.
   */
  record BinOp(String op, PyExpr left, PyExpr right, Span span) implements PyExpr {}

  /** {@code -x}, {@code +x}, {@code ~x} or {@code not x}. */
  record UnaryOp(String op, PyExpr operand, Span span) implements PyExpr {}

  /** The dotted name an expression spells ({@code torch.ops.aten.mm.default}), or null. */
  static String dotted(PyExpr e) {
    if (e instanceof Name n) {
      return n.id();
    }
    if (e instanceof Attribute a) {
      String base = dotted(a.value());
      return base == null ? null : base + "." + a.attr();
    }
    return null;
  }

  /** The same expression, located at {@code span} (used for parenthesized expressions). */
  static PyExpr withSpan(PyExpr e, Span span) {
    if (e instanceof Name x) {
      return new Name(x.id(), span);
    } else if (e instanceof Attribute x) {
      return new Attribute(x.value(), x.attr(), span);
    } else if (e instanceof Call x) {
      return new Call(x.func(), x.args(), x.kwargs(), span);
    } else if (e instanceof Subscript x) {
      return new Subscript(x.value(), x.index(), span);
    } else if (e instanceof IntLit x) {
      return new IntLit(x.value(), span);
    } else if (e instanceof FloatLit x) {
      return new FloatLit(x.value(), span);
    } else if (e instanceof StrLit x) {
      return new StrLit(x.value(), span);
    } else if (e instanceof Constant x) {
      return new Constant(x.word(), span);
    } else if (e instanceof Sequence x) {
      return new Sequence(x.items(), x.tuple(), span);
    } else if (e instanceof BinOp x) {
      return new BinOp(x.op(), x.left(), x.right(), span);
    } else {
      UnaryOp x = (UnaryOp) e;
      return new UnaryOp(x.op(), x.operand(), span);
    }
  }

  static boolean isNone(PyExpr e) {
    return e instanceof Constant c && c.word().equals("None");
  }
}
