package dev.entangle.importer;

import dev.entangle.importer.PyExpr.Span;
import dev.entangle.util.InputException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Recursive-descent parser for Python expressions over a token list, with the cursor the statement
 * parser shares. Precedence follows Python's grammar; conditional expressions, lambdas and
 * comprehensions are not part of graph code and are rejected.
 */
final class PythonExprParser {
  /** The deepest nesting of an expression read; deeper is a located error, not a stack overflow. */
  static final int MAX_DEPTH = 200;

  private int depth;

  private static final Set<String> COMPARISONS = Set.of("<", ">", "<=", ">=", "==", "!=");
  private static final Set<String> KEYWORDS =
      Set.of(
          "and",
          "or",
          "not",
          "in",
          "is",
          "if",
          "else",
          "for",
          "lambda",
          "return",
          "del",
          "pass",
          "import",
          "from",
          "class",
          "def",
          "yield",
          "with",
          "while",
          "global",
          "nonlocal",
          "assert",
          "raise",
          "try",
          "except",
          "finally",
          "async",
          "await",
          "elif",
          "break",
          "continue",
          "as");
  private static final String ADVICE =
      "The importer reads graph code as torch.fx prints it (GraphModule.print_readable() or a"
          + " TORCH_LOGS graph dump); check that the file is such a dump.";

  private final SourceFile src;
  private final List<Token> tokens;
  private int pos;

  PythonExprParser(SourceFile src, List<Token> tokens) {
    this.src = src;
    this.tokens = tokens;
  }

  // ---- cursor ----

  Token peek() {
    return tokens.get(pos);
  }

  Token peek(int ahead) {
    return tokens.get(Math.min(pos + ahead, tokens.size() - 1));
  }

  Token next() {
    Token t = tokens.get(pos);
    if (t.kind() != Token.Kind.END) {
      pos++;
    }
    return t;
  }

  boolean acceptOp(String op) {
    if (peek().isOp(op)) {
      pos++;
      return true;
    }
    return false;
  }

  Token expectOp(String op) {
    Token t = peek();
    if (!t.isOp(op)) {
      throw unexpected(t, "'" + op + "'");
    }
    return next();
  }

  String expectName() {
    Token t = peek();
    if (t.kind() != Token.Kind.NAME || KEYWORDS.contains(t.text())) {
      throw unexpected(t, "a name");
    }
    return next().text();
  }

  /** Skips to the end of the current simple statement (before {@code ;} or the line's end). */
  void skipStatement() {
    while (!peek().endsStatement()) {
      pos++;
    }
  }

  /** Skips to the end of the logical line, past its NEWLINE. */
  void skipLine() {
    while (peek().kind() != Token.Kind.NEWLINE && peek().kind() != Token.Kind.END) {
      pos++;
    }
    if (peek().kind() == Token.Kind.NEWLINE) {
      pos++;
    }
  }

  InputException unexpected(Token t, String expected) {
    return src.error(
        t.line(),
        "cannot read this code: expected " + expected + " but found " + t.describe(),
        ADVICE);
  }

  boolean startsExpression(Token t) {
    return switch (t.kind()) {
      case NAME -> !KEYWORDS.contains(t.text()) || t.text().equals("not");
      case NUMBER, STRING -> true;
      case OP -> "([{-+~".contains(t.text()) && t.text().length() == 1;
      default -> false;
    };
  }

  // ---- expressions ----

  /** {@code expr (',' expr)* [',']}: a bare tuple when there is a comma. */
  PyExpr parseExprList() {
    PyExpr first = parseExpr();
    if (!peek().isOp(",")) {
      return first;
    }
    List<PyExpr> items = new ArrayList<>();
    items.add(first);
    Span last = first.span();
    while (acceptOp(",")) {
      if (!startsExpression(peek())) {
        break;
      }
      PyExpr e = parseExpr();
      items.add(e);
      last = e.span();
    }
    return new PyExpr.Sequence(items, true, first.span().to(last));
  }

  PyExpr parseExpr() {
    PyExpr e = parseOr();
    Token t = peek();
    if (t.isName("if") || t.isName("for") || t.isName("lambda")) {
      throw src.error(
          t.line(),
          "conditional expressions and comprehensions are not part of graph code",
          ADVICE);
    }
    return e;
  }

  private PyExpr parseOr() {
    PyExpr left = parseAnd();
    while (peek().isName("or")) {
      next();
      PyExpr right = parseAnd();
      left = new PyExpr.BinOp("or", left, right, left.span().to(right.span()));
    }
    return left;
  }

  private PyExpr parseAnd() {
    PyExpr left = parseNot();
    while (peek().isName("and")) {
      next();
      PyExpr right = parseNot();
      left = new PyExpr.BinOp("and", left, right, left.span().to(right.span()));
    }
    return left;
  }

  private PyExpr parseNot() {
    if (peek().isName("not")) {
      Token t = next();
      PyExpr operand = parseNot();
      return new PyExpr.UnaryOp(
          "not", operand, new Span(t.start(), operand.span().end(), t.line()));
    }
    return parseComparison();
  }

  private PyExpr parseComparison() {
    PyExpr left = parseBinary(0);
    while (peek().kind() == Token.Kind.OP && COMPARISONS.contains(peek().text())) {
      String op = next().text();
      PyExpr right = parseBinary(0);
      left = new PyExpr.BinOp(op, left, right, left.span().to(right.span()));
    }
    if (peek().isName("in") || peek().isName("is")) {
      throw src.error(peek().line(), "'in' and 'is' are not part of graph code", ADVICE);
    }
    return left;
  }

  /** Binary operator levels, loosest first: | ^ & (<< >>) (+ -) (* / // % @). */
  private static final List<Set<String>> LEVELS =
      List.of(
          Set.of("|"),
          Set.of("^"),
          Set.of("&"),
          Set.of("<<", ">>"),
          Set.of("+", "-"),
          Set.of("*", "/", "//", "%", "@"));

  private PyExpr parseBinary(int level) {
    if (level == LEVELS.size()) {
      return parseUnary();
    }
    PyExpr left = parseBinary(level + 1);
    while (peek().kind() == Token.Kind.OP && LEVELS.get(level).contains(peek().text())) {
      String op = next().text();
      PyExpr right = parseBinary(level + 1);
      left = new PyExpr.BinOp(op, left, right, left.span().to(right.span()));
    }
    return left;
  }

  private PyExpr parseUnary() {
    Token t = peek();
    if (++depth > MAX_DEPTH) {
      throw src.error(
          t.line(), "the expression is nested more than " + MAX_DEPTH + " levels deep", ADVICE);
    }
    try {
      return unary(t);
    } finally {
      depth--;
    }
  }

  private PyExpr unary(Token t) {
    if (t.isOp("-") || t.isOp("+") || t.isOp("~")) {
      next();
      PyExpr operand = parseUnary();
      return new PyExpr.UnaryOp(
          t.text(), operand, new Span(t.start(), operand.span().end(), t.line()));
    }
    return parsePower();
  }

  private PyExpr parsePower() {
    PyExpr base = parsePrimary();
    if (acceptOp("**")) {
      PyExpr exponent = parseUnary();
      return new PyExpr.BinOp("**", base, exponent, base.span().to(exponent.span()));
    }
    return base;
  }

  private PyExpr parsePrimary() {
    PyExpr e = parseAtom();
    while (true) {
      Token t = peek();
      if (t.isOp(".")) {
        next();
        Token nameTok = peek();
        String attr = expectName();
        e =
            new PyExpr.Attribute(
                e, attr, new Span(e.span().start(), nameTok.end(), e.span().line()));
      } else if (t.isOp("(")) {
        e = parseCall(e);
      } else if (t.isOp("[")) {
        next();
        PyExpr index = parseExprList();
        Token close = expectOp("]");
        e =
            new PyExpr.Subscript(
                e, index, new Span(e.span().start(), close.end(), e.span().line()));
      } else {
        return e;
      }
    }
  }

  private PyExpr parseCall(PyExpr func) {
    expectOp("(");
    List<PyExpr> args = new ArrayList<>();
    Map<String, PyExpr> kwargs = new LinkedHashMap<>();
    while (!peek().isOp(")")) {
      Token t = peek();
      if (t.isOp("*") || t.isOp("**")) {
        throw src.error(t.line(), "star arguments are not part of graph code", ADVICE);
      }
      if (t.kind() == Token.Kind.NAME && peek(1).isOp("=")) {
        String key = expectName();
        expectOp("=");
        if (kwargs.put(key, parseExpr()) != null) {
          throw src.error(t.line(), "the keyword argument '" + key + "' is given twice", ADVICE);
        }
      } else {
        if (!kwargs.isEmpty()) {
          throw src.error(t.line(), "a positional argument follows keyword arguments", ADVICE);
        }
        args.add(parseExpr());
      }
      if (!acceptOp(",")) {
        break;
      }
    }
    Token close = expectOp(")");
    return new PyExpr.Call(
        func, args, kwargs, new Span(func.span().start(), close.end(), func.span().line()));
  }

  private PyExpr parseAtom() {
    Token t = peek();
    switch (t.kind()) {
      case NAME -> {
        if (KEYWORDS.contains(t.text())) {
          throw unexpected(t, "an expression");
        }
        next();
        Span span = new Span(t.start(), t.end(), t.line());
        return switch (t.text()) {
          case "None", "True", "False" -> new PyExpr.Constant(t.text(), span);
          default -> new PyExpr.Name(t.text(), span);
        };
      }
      case NUMBER -> {
        next();
        return number(t);
      }
      case STRING -> {
        next();
        StringBuilder sb = new StringBuilder(t.text());
        Token last = t;
        while (peek().kind() == Token.Kind.STRING) {
          last = next();
          sb.append(last.text());
        }
        return new PyExpr.StrLit(sb.toString(), new Span(t.start(), last.end(), t.line()));
      }
      case OP -> {
        if (t.isOp("(") || t.isOp("[")) {
          return sequence(t.isOp("("));
        }
        throw unexpected(t, "an expression");
      }
      default -> throw unexpected(t, "an expression");
    }
  }

  private PyExpr sequence(boolean paren) {
    Token open = next();
    String close = paren ? ")" : "]";
    List<PyExpr> items = new ArrayList<>();
    boolean comma = false;
    while (!peek().isOp(close)) {
      items.add(parseExpr());
      if (!acceptOp(",")) {
        break;
      }
      comma = true;
    }
    Token end = expectOp(close);
    Span span = new Span(open.start(), end.end(), open.line());
    if (paren && items.size() == 1 && !comma) {
      return PyExpr.withSpan(items.get(0), span);
    }
    return new PyExpr.Sequence(items, paren, span);
  }

  private PyExpr number(Token t) {
    String text = t.text().replace("_", "");
    Span span = new Span(t.start(), t.end(), t.line());
    try {
      String lower = text.toLowerCase();
      if (lower.startsWith("0x")) {
        return new PyExpr.IntLit(new BigInteger(text.substring(2), 16), span);
      }
      if (lower.startsWith("0o")) {
        return new PyExpr.IntLit(new BigInteger(text.substring(2), 8), span);
      }
      if (lower.startsWith("0b")) {
        return new PyExpr.IntLit(new BigInteger(text.substring(2), 2), span);
      }
      if (lower.contains(".") || lower.contains("e")) {
        return new PyExpr.FloatLit(Double.parseDouble(text), span);
      }
      return new PyExpr.IntLit(new BigInteger(text), span);
    } catch (NumberFormatException ex) {
      throw src.error(t.line(), "cannot read the number " + t.text(), ADVICE);
    }
  }
}
