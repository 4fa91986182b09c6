package dev.entangle.importer;

/**
 * One lexical token of printed graph code.
 *
 * @param kind what sort of token
 * @param text the name, number text, operator, decoded string value or comment text
 * @param line the 1-based line it starts on
 * @param start offset of its first character in the file
 * @param end offset just past its last character
 */
record Token(Kind kind, String text, int line, int start, int end) {

  enum Kind {
    NAME,
    NUMBER,
    STRING,
    OP,
    /** The end of a logical line (never inside brackets). */
    NEWLINE,
    /** A comment on a line of its own, outside brackets; text is what follows {@code #}. */
    COMMENT,
    END
  }

  boolean isOp(String op) {
    return kind == Kind.OP && text.equals(op);
  }

  boolean isName(String name) {
    return kind == Kind.NAME && text.equals(name);
  }

  boolean endsStatement() {
    return kind == Kind.NEWLINE || kind == Kind.END || isOp(";");
  }

  /** How the token reads in a message. */
  String describe() {
    return switch (kind) {
      case NEWLINE -> "the end of the line";
      case END -> "the end of the file";
      case STRING -> "a string";
      case COMMENT -> "a comment";
      default -> "'" + text + "'";
    };
  }
}
