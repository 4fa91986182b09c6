package dev.entangle.rules;

import java.util.List;

/** A node of a lemma file as read: an atom, a parenthesized list or a bracketed attribute list. */
sealed interface SExpr {
  int line();

  int col();

  /**
   * A symbol or number, e.g. {@code matmul}, {@code ?a}, {@code ?xs...}, {@code -1}, {@code :when}.
   */
  record Atom(String text, int line, int col) implements SExpr {
    boolean isVar() {
      return text.startsWith("?");
    }

    boolean isListVar() {
      return text.startsWith("?") && text.endsWith("...");
    }

    /** The variable's name without {@code ?} and {@code ...}. */
    String varName() {
      String s = text.substring(1);
      return s.endsWith("...") ? s.substring(0, s.length() - 3) : s;
    }

    /** The atom as an integer, or null when it is not one (or too large for a long). */
    Long asLong() {
      // most atoms are names: refuse them before parsing, which would throw (costly, and
      // thousands of times per lemma library)
      int start = text.startsWith("+") || text.startsWith("-") ? 1 : 0;
      if (start == text.length()) {
        return null;
      }
      for (int i = start; i < text.length(); i++) {
        if (!Character.isDigit(text.charAt(i))) {
          return null;
        }
      }
      try {
        return Long.parseLong(text);
      } catch (NumberFormatException e) {
        return null;
      }
    }

    @Override
    public String toString() {
      return text;
    }
  }

  /**
   * {@code (head[attrs] items...)}: {@code attrs} is null when no brackets follow the head; {@code
   * spread} marks a list written with a trailing {@code ...} (a template mapped over list
   * variables).
   */
  record Lst(List<SExpr> items, Brackets attrs, boolean spread, int line, int col)
      implements SExpr {
    @Override
    public String toString() {
      StringBuilder sb = new StringBuilder("(");
      for (int i = 0; i < items.size(); i++) {
        sb.append(i == 0 ? "" : " ").append(items.get(i));
        if (i == 0 && attrs != null) {
          sb.append(attrs);
        }
      }
      return sb.append(')').append(spread ? "..." : "").toString();
    }
  }

  /** {@code [a b c]}: an operator's attributes. */
  record Brackets(List<SExpr> items, int line, int col) implements SExpr {
    @Override
    public String toString() {
      StringBuilder sb = new StringBuilder("[");
      for (int i = 0; i < items.size(); i++) {
        sb.append(i == 0 ? "" : " ").append(items.get(i));
      }
      return sb.append(']').toString();
    }
  }
}
