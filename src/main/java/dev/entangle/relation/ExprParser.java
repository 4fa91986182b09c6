package dev.entangle.relation;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;

/**
 * Parses the expression syntax of relation files (docs/formats.md, Expression syntax): tensor
 * references ({@code name}, {@code rK.name}, backquoted names) and the clean functions with keyword
 * or positional arguments. Errors are {@link ParseError}s carrying the offset of the problem.
 */
public final class ExprParser {
  private final String text;
  private int pos;
  private int depth;

  /** The deepest nesting of calls read; a deeper expression is a located error. */
  public static final int MAX_DEPTH = 200;

  private ExprParser(String text) {
    this.text = text;
  }

  /** Parses one expression; the whole text must be that expression (blanks around it aside). */
  public static Expr parse(String text) {
    ExprParser p = new ExprParser(text);
    Expr e = p.expr();
    p.skipBlanks();
    if (!p.atEnd()) {
      throw p.error("unexpected " + p.describeHere() + " after the end of the expression");
    }
    return e;
  }

  private Expr expr() {
    skipBlanks();
    if (atEnd()) {
      throw error(
          "expected an expression (a tensor name or a function call such as"
              + " concat(...)), but the text ends here");
    }
    char c = peek();
    if (c == '`') {
      return new Expr.Tensor(null, backquoted());
    }
    if (!Names.isNameStart(c)) {
      throw error(
          "expected an expression (a tensor name or a function call), found " + describeHere());
    }
    int start = pos;
    String word = plainName();
    int afterWord = pos;
    skipBlanks();
    if (!atEnd() && peek() == '(') {
      return call(word, start);
    }
    pos = afterWord;
    return reference(word, start);
  }

  private Expr reference(String word, int start) {
    Matcher m = Names.RANK_REF.matcher(word);
    if (!m.matches()) {
      return new Expr.Tensor(null, word);
    }
    int rank;
    try {
      rank = Integer.parseInt(m.group(1));
    } catch (NumberFormatException e) {
      throw new ParseError(start + 1, "rank " + m.group(1) + " is too large");
    }
    String rest = m.group(2);
    if (!rest.isEmpty()) {
      return new Expr.Tensor(rank, rest);
    }
    if (!atEnd() && peek() == '`') {
      return new Expr.Tensor(rank, backquoted());
    }
    throw error(
        "expected a tensor name after '"
            + word
            + "', as in "
            + word
            + "x or "
            + word
            + "`any name`");
  }

  private Expr call(String function, int start) {
    if (!CallBinder.isFunction(function)) {
      throw new ParseError(
          start,
          "unknown function '" + function + "'; the clean functions are " + CallBinder.FUNCTIONS);
    }
    if (++depth > MAX_DEPTH) {
      throw new ParseError(
          start, "the expression nests calls more than " + MAX_DEPTH + " levels deep");
    }
    pos++; // '('
    List<CallArg> args = new ArrayList<>();
    skipBlanks();
    if (!atEnd() && peek() == ')') {
      depth--;
      return CallBinder.bind(function, args, pos++);
    }
    while (true) {
      args.add(arg(function));
      skipBlanks();
      if (atEnd()) {
        throw error("expected ',' or ')' in " + function + "(...), but the text ends here");
      }
      if (peek() == ',') {
        pos++;
      } else if (peek() == ')') {
        depth--;
        return CallBinder.bind(function, args, pos++);
      } else {
        throw error(
            "expected ',' or ')' after an argument of " + function + ", found " + describeHere());
      }
    }
  }

  private CallArg arg(String function) {
    skipBlanks();
    int at = pos;
    if (atEnd()) {
      throw error("expected an argument of " + function + ", but the text ends here");
    }
    char c = peek();
    if (c == '[') {
      return new CallArg(null, at, intList(), at);
    }
    if (c == '-' || isDigit(c)) {
      return new CallArg(null, at, integer(), at);
    }
    if (Names.isNameStart(c)) {
      String word = plainName();
      skipBlanks();
      if (!atEnd() && peek() == '=') {
        pos++;
        skipBlanks();
        int valueAt = pos;
        if (!atEnd() && peek() == '[') {
          return new CallArg(word, at, intList(), valueAt);
        }
        if (!atEnd() && (peek() == '-' || isDigit(peek()))) {
          return new CallArg(word, at, integer(), valueAt);
        }
        throw error(
            "expected an integer or a list of integers after '"
                + word
                + "=', found "
                + describeHere());
      }
      pos = at;
    }
    return new CallArg(null, at, expr(), at);
  }

  private List<Long> intList() {
    pos++; // '['
    List<Long> items = new ArrayList<>();
    skipBlanks();
    if (!atEnd() && peek() == ']') {
      pos++;
      return items;
    }
    while (true) {
      skipBlanks();
      if (atEnd() || !(peek() == '-' || isDigit(peek()))) {
        throw error("expected an integer in the list, found " + describeHere());
      }
      items.add(integer());
      skipBlanks();
      if (!atEnd() && peek() == ',') {
        pos++;
      } else if (!atEnd() && peek() == ']') {
        pos++;
        return items;
      } else {
        throw error("expected ',' or ']' in the list, found " + describeHere());
      }
    }
  }

  private long integer() {
    int start = pos;
    if (peek() == '-') {
      pos++;
    }
    int digits = pos;
    while (!atEnd() && isDigit(peek())) {
      pos++;
    }
    if (pos == digits || (!atEnd() && Names.isNamePart(peek()))) {
      while (!atEnd() && (Names.isNamePart(peek()) || peek() == '-')) {
        pos++;
      }
      throw new ParseError(
          start, "expected an integer, found '" + text.substring(start, pos) + "'");
    }
    try {
      return Long.parseLong(text.substring(start, pos));
    } catch (NumberFormatException e) {
      throw new ParseError(
          start, "the integer " + text.substring(start, pos) + " does not fit in 64 bits");
    }
  }

  private String plainName() {
    int start = pos;
    while (!atEnd() && Names.isNamePart(peek())) {
      pos++;
    }
    return text.substring(start, pos);
  }

  private String backquoted() {
    int open = pos;
    int close = text.indexOf('`', open + 1);
    if (close < 0) {
      throw new ParseError(open, "unterminated backquoted name; close it with another `");
    }
    if (close == open + 1) {
      throw new ParseError(open, "empty backquoted name; a name has at least one character");
    }
    pos = close + 1;
    return text.substring(open + 1, close);
  }

  private void skipBlanks() {
    while (!atEnd() && Character.isWhitespace(peek())) {
      pos++;
    }
  }

  private boolean atEnd() {
    return pos >= text.length();
  }

  private char peek() {
    return text.charAt(pos);
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private String describeHere() {
    return atEnd() ? "the end of the text" : "'" + peek() + "'";
  }

  private ParseError error(String reason) {
    return new ParseError(pos, reason);
  }
}
