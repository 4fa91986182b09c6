package dev.entangle.rules;

/** One problem in a lemma file, with its position; rendered like a compiler's error. */
record RuleError(String file, int line, int col, String message, String sourceLine) {
  /** The most characters of the source line shown. */
  static final int WINDOW = 300;

  String render() {
    StringBuilder sb = new StringBuilder();
    sb.append(file)
        .append(':')
        .append(line)
        .append(':')
        .append(col)
        .append(": error: ")
        .append(message);
    if (sourceLine != null) {
      String shown = sourceLine;
      int at = Math.max(0, col - 1);
      if (shown.length() > WINDOW) {
        // a long line is shown as the window around the column, its cuts marked
        int from = Math.max(0, Math.min(at, shown.length()) - WINDOW / 2);
        int to = Math.min(shown.length(), from + WINDOW);
        String head = from > 0 ? "..." : "";
        shown = head + shown.substring(from, to) + (to < shown.length() ? "..." : "");
        at = at - from + head.length();
      }
      sb.append('\n').append(shown).append('\n');
      sb.append(" ".repeat(at)).append('^');
    }
    return sb.toString();
  }
}
