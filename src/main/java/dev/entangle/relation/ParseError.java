package dev.entangle.relation;

/**
 * An expression that does not parse: where (a 0-based character offset into the text) and what was
 * expected there. {@link RelationReader} turns it into a user-facing message with a caret.
 */
public final class ParseError extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int position;
  private final String reason;

  public ParseError(int position, String reason) {
    super("column " + (position + 1) + ": " + reason);
    this.position = position;
    this.reason = reason;
  }

  /** The 0-based offset in the expression text where the problem is. */
  public int position() {
    return position;
  }

  /** What is wrong, e.g. {@code expected ',' or ')'}. */
  public String reason() {
    return reason;
  }

  /**
   * The text with a caret under the problem, indented, as two lines: {@code " text\n ^"}. Line
   * breaks inside the text are shown as spaces so the caret stays aligned.
   */
  public String pointer(String text) {
    String shown = text.replaceAll("[\\r\\n\\t]", " ");
    int at = Math.min(position, shown.length());
    if (shown.length() > WINDOW) {
      // a long text is shown as the window around the problem, its cuts marked
      int from = Math.max(0, at - WINDOW / 2);
      int to = Math.min(shown.length(), from + WINDOW);
      String head = from > 0 ? "..." : "";
      shown = head + shown.substring(from, to) + (to < shown.length() ? "..." : "");
      at = at - from + head.length();
    }
    return "    " + shown + "\n    " + " ".repeat(at) + "^";
  }

  /** The most characters of the text a pointer shows. */
  static final int WINDOW = 120;
}
