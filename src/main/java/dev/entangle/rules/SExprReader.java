package dev.entangle.rules;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads lemma-file text into {@link SExpr}s. Comments run from {@code ;} or {@code #} to the end of
 * the line. {@code head[...]} written without a space attaches attributes to a list's head; {@code
 * ...} right after {@code )} marks a mapped template.
 */
final class SExprReader {
  private final String file;
  private final String text;
  private final String[] lines;
  private final List<RuleError> errors;
  private int pos;
  private int line = 1;
  private int col = 1;
  private int depth;

  /**
   * The deepest nesting of brackets read; a deeper form is a located error, not a stack overflow.
   */
  static final int MAX_DEPTH = 200;

  SExprReader(String file, String text, List<RuleError> errors) {
    this.file = file;
    this.text = text;
    this.lines = text.split("\n", -1);
    this.errors = errors;
  }

  String sourceLine(int n) {
    return n >= 1 && n <= lines.length ? lines[n - 1] : null;
  }

  void error(int l, int c, String message) {
    errors.add(new RuleError(file, l, c, message, sourceLine(l)));
  }

  /** All top-level forms; syntax errors are recorded and reading stops at the first one. */
  List<SExpr> readAll() {
    List<SExpr> out = new ArrayList<>();
    try {
      while (true) {
        skipSpace();
        if (pos >= text.length()) {
          return out;
        }
        out.add(read());
      }
    } catch (SyntaxStop e) {
      return out;
    }
  }

  private static final class SyntaxStop extends RuntimeException {
    private static final long serialVersionUID = 1L;

    SyntaxStop() {
      super(null, null, false, false);
    }
  }

  private SyntaxStop fail(int l, int c, String message) {
    error(l, c, message);
    return new SyntaxStop();
  }

  private SExpr read() {
    skipSpace();
    if (pos >= text.length()) {
      throw fail(line, col, "unexpected end of file");
    }
    char ch = text.charAt(pos);
    int l = line;
    int c = col;
    if (ch == '(') {
      if (depth >= MAX_DEPTH) {
        throw fail(l, c, "the form is nested more than " + MAX_DEPTH + " levels deep");
      }
      depth++;
      advance();
      List<SExpr> items = new ArrayList<>();
      SExpr.Brackets attrs = null;
      while (true) {
        skipSpace();
        if (pos >= text.length()) {
          throw fail(l, c, "this '(' is never closed");
        }
        char d = text.charAt(pos);
        if (d == ')') {
          advance();
          break;
        }
        if (d == '[') {
          if (items.size() != 1 || attrs != null) {
            throw fail(
                line,
                col,
                "attributes in [...] may only follow an operator name, as in (slice[?d ?s ?e 1] ?x)");
          }
          attrs = readBrackets();
          continue;
        }
        items.add(read());
      }
      boolean spread = false;
      if (text.startsWith("...", pos)) {
        advance();
        advance();
        advance();
        spread = true;
      }
      depth--;
      return new SExpr.Lst(List.copyOf(items), attrs, spread, l, c);
    }
    if (ch == ')') {
      throw fail(l, c, "unexpected ')'");
    }
    if (ch == '[' || ch == ']') {
      throw fail(l, c, "unexpected '" + ch + "'");
    }
    StringBuilder sb = new StringBuilder();
    while (pos < text.length()) {
      char d = text.charAt(pos);
      if (Character.isWhitespace(d) || d == '(' || d == ')' || d == '[' || d == ']' || d == ';') {
        break;
      }
      sb.append(d);
      advance();
    }
    return new SExpr.Atom(sb.toString(), l, c);
  }

  private SExpr.Brackets readBrackets() {
    int l = line;
    int c = col;
    if (depth >= MAX_DEPTH) {
      throw fail(l, c, "the form is nested more than " + MAX_DEPTH + " levels deep");
    }
    advance();
    List<SExpr> items = new ArrayList<>();
    while (true) {
      skipSpace();
      if (pos >= text.length()) {
        throw fail(l, c, "this '[' is never closed");
      }
      if (text.charAt(pos) == ']') {
        advance();
        return new SExpr.Brackets(List.copyOf(items), l, c);
      }
      items.add(read());
    }
  }

  private void skipSpace() {
    while (pos < text.length()) {
      char ch = text.charAt(pos);
      if (ch == ';' || ch == '#') {
        while (pos < text.length() && text.charAt(pos) != '\n') {
          advance();
        }
      } else if (Character.isWhitespace(ch)) {
        advance();
      } else {
        return;
      }
    }
  }

  private void advance() {
    if (text.charAt(pos) == '\n') {
      line++;
      col = 1;
    } else {
      col++;
    }
    pos++;
  }
}
