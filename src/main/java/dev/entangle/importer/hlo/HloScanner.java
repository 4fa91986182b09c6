package dev.entangle.importer.hlo;

import dev.entangle.importer.SourceFile;
import dev.entangle.util.InputException;

/**
 * A cursor over HLO text: blanks and comments ({@code /*index=5*}{@code /} anywhere, {@code //} to
 * the line end), double-quoted strings, bracketed groups (nested at most {@value #MAX_NESTING}
 * deep), integers checked against their range, and errors located at {@code FILE:LINE:COLUMN}.
 */
final class HloScanner {
  /** How deep brackets and tuple types may nest. */
  static final int MAX_NESTING = 256;

  private static final int MAX_QUOTE = 160;

  final SourceFile src;
  final String text;
  int pos;

  HloScanner(SourceFile src) {
    this.src = src;
    this.text = src.text();
  }

  boolean atEnd() {
    return pos >= text.length();
  }

  char peek() {
    return pos < text.length() ? text.charAt(pos) : '\0';
  }

  /** The 1-based line of an offset. */
  int lineOf(int offset) {
    return src.lineOf(offset);
  }

  /** The 1-based column of an offset. */
  int columnOf(int offset) {
    return src.columnOf(offset);
  }

  /**
   * A user-facing error at an offset: {@code FILE:LINE:COLUMN: PROBLEM: `CODE`. ADVICE}, one
   * paragraph.
   */
  InputException error(int offset, String problem, String advice) {
    int at = Math.max(0, Math.min(offset, text.length()));
    int line = lineOf(at);
    StringBuilder sb = new StringBuilder();
    sb.append(src.name()).append(':').append(line).append(':').append(columnOf(at));
    sb.append(": ").append(problem);
    String code = src.line(line).trim();
    if (!code.isEmpty()) {
      if (code.length() > MAX_QUOTE) {
        code = code.substring(0, MAX_QUOTE) + " ...";
      }
      sb.append(": `").append(code).append('`');
    }
    sb.append('.');
    if (advice != null && !advice.isEmpty()) {
      sb.append(' ').append(advice);
    }
    return new InputException(sb.toString());
  }

  /** An error at the cursor. */
  InputException error(String problem) {
    return error(pos, problem, HloParser.ADVICE);
  }

  /** Skips blanks and comments; line breaks too when asked. */
  void skipSpace(boolean newlines) {
    while (pos < text.length()) {
      char c = peek();
      if (c == ' ' || c == '\t' || ((c == '\n' || c == '\r') && newlines)) {
        pos++;
      } else if (text.startsWith("/*", pos)) {
        skipBlockComment();
      } else if (newlines && text.startsWith("//", pos)) {
        while (pos < text.length() && peek() != '\n') {
          pos++;
        }
      } else {
        return;
      }
    }
  }

  private void skipBlockComment() {
    int end = text.indexOf("*/", pos + 2);
    if (end < 0) {
      throw error(pos, "a comment `/*` is never closed with `*/`", HloParser.ADVICE);
    }
    pos = end + 2;
  }

  /**
   * Skips a double-quoted string with backslash escapes, on one line (XLA escapes line breaks); the
   * cursor is on its opening quote.
   */
  void skipString() {
    int start = pos;
    pos++;
    while (pos < text.length() && peek() != '"' && peek() != '\n') {
      pos += peek() == '\\' ? 2 : 1;
    }
    if (pos >= text.length() || peek() != '"') {
      throw error(start, "a string is not closed with `\"`", HloParser.ADVICE);
    }
    pos++;
  }

  /**
   * Advances to the first of {@code stops} outside brackets, strings and comments, or to a closing
   * bracket that nothing here opened, or to the end. Brackets must match.
   */
  void scanTo(String stops) {
    char[] closers = new char[MAX_NESTING];
    int[] openedAt = new int[MAX_NESTING];
    int depth = 0;
    while (pos < text.length()) {
      char c = peek();
      if (c == '"') {
        skipString();
        continue;
      }
      if (text.startsWith("/*", pos)) {
        skipBlockComment();
        continue;
      }
      if (c == '{' || c == '[' || c == '(') {
        if (depth == MAX_NESTING) {
          throw error(
              pos,
              "brackets nest more than " + MAX_NESTING + " deep",
              "No HLO construct nests that deep; check that the file is an HLO dump.");
        }
        openedAt[depth] = pos;
        closers[depth++] = c == '{' ? '}' : c == '[' ? ']' : ')';
      } else if (c == '}' || c == ']' || c == ')') {
        if (depth == 0) {
          return;
        }
        if (closers[depth - 1] != c) {
          throw error(
              openedAt[depth - 1],
              "the `" + opener(closers[depth - 1]) + "` opened here is closed by `" + c + "`",
              HloParser.ADVICE);
        }
        depth--;
      } else if (depth == 0 && stops.indexOf(c) >= 0) {
        return;
      }
      pos++;
    }
    if (depth > 0) {
      throw error(
          openedAt[depth - 1],
          "the `" + opener(closers[depth - 1]) + "` opened here is never closed",
          HloParser.ADVICE);
    }
  }

  /**
   * The bracketed group starting at the cursor, brackets included, with its comments removed; the
   * cursor moves past it.
   */
  String balanced() {
    int start = pos;
    char close = peek() == '{' ? '}' : peek() == '[' ? ']' : ')';
    pos++;
    scanTo("");
    if (peek() != close) {
      throw error(
          start, "the `" + opener(close) + "` opened here is never closed", HloParser.ADVICE);
    }
    pos++;
    return withoutComments(text.substring(start, pos));
  }

  /** The text up to the next of {@code stops} outside brackets, comments removed and stripped. */
  String rawUntil(String stops) {
    int start = pos;
    scanTo(stops);
    return withoutComments(text.substring(start, pos)).strip();
  }

  /** Skips the rest of the line (brackets may span lines). */
  void skipToLineEnd() {
    scanTo("\n");
  }

  /** Consumes a keyword followed by a blank, if present. */
  boolean word(String w) {
    if (text.startsWith(w, pos)
        && pos + w.length() < text.length()
        && Character.isWhitespace(text.charAt(pos + w.length()))) {
      pos += w.length();
      return true;
    }
    return false;
  }

  void expect(char c, String what) {
    if (peek() != c) {
      throw error("expected " + what);
    }
    pos++;
  }

  /** A name: letters, digits, {@code _ . -}, after an optional {@code %}. */
  String name(String what) {
    if (peek() == '%') {
      pos++;
    }
    return identifier(what);
  }

  String identifier(String what) {
    int start = pos;
    while (pos < text.length() && isNameChar(peek())) {
      pos++;
    }
    if (start == pos) {
      throw error("expected " + what);
    }
    return text.substring(start, pos);
  }

  /**
   * A non-negative decimal integer of at most {@code max}; a longer or larger number is an error
   * naming {@code what}.
   */
  long natural(String what, long max) {
    int start = pos;
    while (pos < text.length() && Character.isDigit(peek())) {
      pos++;
    }
    if (start == pos) {
      throw error(start, "expected " + what, HloParser.ADVICE);
    }
    long v = parseNatural(text.substring(start, pos), max);
    if (v < 0) {
      throw error(
          start,
          what + " " + text.substring(start, pos) + " is larger than " + max,
          HloParser.ADVICE);
    }
    return v;
  }

  /** A string of decimal digits as a number of at most {@code max}, or -1 when larger. */
  static long parseNatural(String digits, long max) {
    long v = 0;
    for (int i = 0; i < digits.length(); i++) {
      int d = digits.charAt(i) - '0';
      if (d < 0 || d > 9 || v > (max - d) / 10) {
        return -1;
      }
      v = v * 10 + d;
    }
    return v;
  }

  static boolean isNameChar(char c) {
    return Character.isLetterOrDigit(c) || c == '_' || c == '.' || c == '-';
  }

  static boolean isNameChars(String s) {
    if (s.isEmpty()) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      if (!isNameChar(s.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  /** A text with its {@code /* *}{@code /} comments removed (strings kept as they are). */
  static String withoutComments(String s) {
    if (!s.contains("/*")) {
      return s;
    }
    StringBuilder sb = new StringBuilder(s.length());
    int i = 0;
    while (i < s.length()) {
      char c = s.charAt(i);
      if (c == '"') {
        int j = i + 1;
        while (j < s.length() && s.charAt(j) != '"') {
          j += s.charAt(j) == '\\' ? 2 : 1;
        }
        j = Math.min(j + 1, s.length());
        sb.append(s, i, j);
        i = j;
      } else if (s.startsWith("/*", i)) {
        int end = s.indexOf("*/", i + 2);
        i = end < 0 ? s.length() : end + 2;
      } else {
        sb.append(c);
        i++;
      }
    }
    return sb.toString();
  }

  private static char opener(char closer) {
    return closer == '}' ? '{' : closer == ']' ? '[' : '(';
  }
}
