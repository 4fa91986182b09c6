package dev.entangle.importer;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;

/**
 * Splits printed Python into tokens, one pass over the characters (no regular expressions).
 * Brackets join lines as in Python; indentation carries no meaning for graph code and is dropped.
 */
final class Tokenizer {
  private static final Set<String> TWO_CHAR_OPS =
      Set.of("->", "**", "//", "==", "!=", "<=", ">=", "<<", ">>", ":=");
  private static final String ONE_CHAR_OPS = "()[]{},:;.=+-*/%@&|^~<>";
  private static final String ADVICE =
      "The importer reads graph code as torch.fx prints it (GraphModule.print_readable() or a"
          + " TORCH_LOGS graph dump); check that the file is such a dump.";

  private final SourceFile src;
  private final String s;
  private final List<Token> out = new ArrayList<>();
  private final Deque<int[]> open = new ArrayDeque<>();
  private int pos;
  private int line = 1;
  private boolean lineHasTokens;

  private Tokenizer(SourceFile src) {
    this.src = src;
    this.s = src.text();
  }

  static List<Token> tokenize(SourceFile src) {
    return new Tokenizer(src).run();
  }

  private List<Token> run() {
    int n = s.length();
    while (pos < n) {
      char c = s.charAt(pos);
      if (c == '\n') {
        newline();
        pos++;
        line++;
      } else if (c == ' ' || c == '\t' || c == '\f' || c == '\r') {
        pos++;
      } else if (c == '\\'
          && pos + 1 < n
          && (s.charAt(pos + 1) == '\n' || s.charAt(pos + 1) == '\r')) {
        pos++;
        if (s.charAt(pos) == '\r') {
          pos++;
        }
        if (pos < n && s.charAt(pos) == '\n') {
          pos++;
        }
        line++;
      } else if (c == '#') {
        comment();
      } else if (isNameStart(c)) {
        name();
      } else if (isDigit(c) || (c == '.' && pos + 1 < n && isDigit(s.charAt(pos + 1)))) {
        number();
      } else if (c == '"' || c == '\'') {
        string(pos, false);
      } else {
        op();
      }
    }
    if (!open.isEmpty()) {
      int[] first = open.peekLast();
      throw src.error(
          first[0], "the bracket '" + (char) first[1] + "' opened here is never closed", ADVICE);
    }
    newline();
    out.add(new Token(Token.Kind.END, "", line, n, n));
    return out;
  }

  private void newline() {
    if (open.isEmpty() && lineHasTokens) {
      out.add(new Token(Token.Kind.NEWLINE, "", line, pos, pos));
      lineHasTokens = false;
    }
  }

  private void add(Token.Kind kind, String text, int start, int startLine) {
    out.add(new Token(kind, text, startLine, start, pos));
    lineHasTokens = true;
  }

  private void comment() {
    int start = pos;
    int end = s.indexOf('\n', pos);
    if (end < 0) {
      end = s.length();
    }
    pos = end;
    if (open.isEmpty() && !lineHasTokens) {
      out.add(new Token(Token.Kind.COMMENT, s.substring(start + 1, end).trim(), line, start, end));
    }
  }

  private void name() {
    int start = pos;
    while (pos < s.length() && isNamePart(s.charAt(pos))) {
      pos++;
    }
    String word = s.substring(start, pos);
    if (pos < s.length()
        && (s.charAt(pos) == '"' || s.charAt(pos) == '\'')
        && isStringPrefix(word)) {
      if (word.toLowerCase().contains("f")) {
        throw src.error(line, "f-strings are not part of printed graph code", ADVICE);
      }
      string(start, word.toLowerCase().contains("r"));
      return;
    }
    add(Token.Kind.NAME, word, start, line);
  }

  private void number() {
    int start = pos;
    int n = s.length();
    if (s.charAt(pos) == '0' && pos + 1 < n && "xXoObB".indexOf(s.charAt(pos + 1)) >= 0) {
      pos += 2;
      while (pos < n && (Character.isLetterOrDigit(s.charAt(pos)) || s.charAt(pos) == '_')) {
        pos++;
      }
    } else {
      digits();
      if (pos < n && s.charAt(pos) == '.') {
        pos++;
        digits();
      }
      if (pos < n && (s.charAt(pos) == 'e' || s.charAt(pos) == 'E')) {
        int save = pos;
        pos++;
        if (pos < n && (s.charAt(pos) == '+' || s.charAt(pos) == '-')) {
          pos++;
        }
        if (pos < n && isDigit(s.charAt(pos))) {
          digits();
        } else {
          pos = save;
        }
      }
    }
    if (pos < n && isNamePart(s.charAt(pos))) {
      throw src.error(
          line, "cannot read the number starting '" + s.substring(start, pos + 1) + "'", ADVICE);
    }
    add(Token.Kind.NUMBER, s.substring(start, pos), start, line);
  }

  private void digits() {
    while (pos < s.length() && (isDigit(s.charAt(pos)) || s.charAt(pos) == '_')) {
      pos++;
    }
  }

  /** Reads a string literal whose quote is at {@code pos}; {@code start} includes any prefix. */
  private void string(int start, boolean raw) {
    int startLine = line;
    char q = s.charAt(pos);
    boolean triple = pos + 2 < s.length() && s.charAt(pos + 1) == q && s.charAt(pos + 2) == q;
    pos += triple ? 3 : 1;
    StringBuilder sb = new StringBuilder();
    while (true) {
      if (pos >= s.length()) {
        throw src.error(startLine, "this string is never closed", ADVICE);
      }
      char c = s.charAt(pos);
      if (c == q
          && (!triple
              || (pos + 2 < s.length() && s.charAt(pos + 1) == q && s.charAt(pos + 2) == q))) {
        pos += triple ? 3 : 1;
        break;
      }
      if (c == '\n') {
        if (!triple) {
          throw src.error(startLine, "this string is never closed on its line", ADVICE);
        }
        line++;
        sb.append(c);
        pos++;
      } else if (c == '\\' && pos + 1 < s.length()) {
        pos = raw ? rawEscape(sb) : escape(sb, startLine);
      } else {
        sb.append(c);
        pos++;
      }
    }
    add(Token.Kind.STRING, sb.toString(), start, startLine);
  }

  private int rawEscape(StringBuilder sb) {
    sb.append(s.charAt(pos)).append(s.charAt(pos + 1));
    if (s.charAt(pos + 1) == '\n') {
      line++;
    }
    return pos + 2;
  }

  private int escape(StringBuilder sb, int startLine) {
    char e = s.charAt(pos + 1);
    int next = pos + 2;
    switch (e) {
      case '\n' -> line++;
      case '\\', '\'', '"' -> sb.append(e);
      case 'n' -> sb.append('\n');
      case 't' -> sb.append('\t');
      case 'r' -> sb.append('\r');
      case 'a' -> sb.append('\u0007');
      case 'b' -> sb.append('\b');
      case 'f' -> sb.append('\f');
      case 'v' -> sb.append('\u000b');
      case 'x' -> next = hexEscape(sb, 2, startLine);
      case 'u' -> next = hexEscape(sb, 4, startLine);
      case 'U' -> next = hexEscape(sb, 8, startLine);
      default -> {
        if (e >= '0' && e <= '7') {
          int end = pos + 1;
          while (end < pos + 4
              && end < s.length()
              && s.charAt(end) >= '0'
              && s.charAt(end) <= '7') {
            end++;
          }
          sb.append((char) Integer.parseInt(s.substring(pos + 1, end), 8));
          next = end;
        } else {
          sb.append('\\').append(e);
        }
      }
    }
    return next;
  }

  private int hexEscape(StringBuilder sb, int digits, int startLine) {
    int from = pos + 2;
    int to = from + digits;
    if (to > s.length()) {
      throw src.error(startLine, "a string has a broken \\x, \\u or \\U escape", ADVICE);
    }
    try {
      sb.appendCodePoint(Integer.parseInt(s.substring(from, to), 16));
    } catch (IllegalArgumentException ex) {
      throw src.error(startLine, "a string has a broken \\x, \\u or \\U escape", ADVICE);
    }
    return to;
  }

  private void op() {
    int start = pos;
    char c = s.charAt(pos);
    if (pos + 1 < s.length()) {
      String two = s.substring(pos, pos + 2);
      if (TWO_CHAR_OPS.contains(two)) {
        pos += 2;
        add(Token.Kind.OP, two, start, line);
        return;
      }
    }
    if (ONE_CHAR_OPS.indexOf(c) < 0) {
      throw src.error(line, "unexpected character '" + c + "'", ADVICE);
    }
    if (c == '(' || c == '[' || c == '{') {
      open.push(new int[] {line, c});
    } else if (c == ')' || c == ']' || c == '}') {
      char expected = c == ')' ? '(' : c == ']' ? '[' : '{';
      if (open.isEmpty() || open.peek()[1] != expected) {
        throw src.error(line, "the bracket '" + c + "' closes nothing that was opened", ADVICE);
      }
      open.pop();
    }
    pos++;
    add(Token.Kind.OP, String.valueOf(c), start, line);
  }

  private static boolean isStringPrefix(String w) {
    String l = w.toLowerCase();
    return l.equals("r")
        || l.equals("b")
        || l.equals("u")
        || l.equals("f")
        || l.equals("br")
        || l.equals("rb")
        || l.equals("fr")
        || l.equals("rf");
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private static boolean isNameStart(char c) {
    return c == '_' || Character.isLetter(c);
  }

  private static boolean isNamePart(char c) {
    return c == '_' || Character.isLetterOrDigit(c);
  }
}
