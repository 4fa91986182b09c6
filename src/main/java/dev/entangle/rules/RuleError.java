package dev.entangle.rules;

/** One problem in a lemma file, with its position; rendered like a compiler's error. */
record RuleError(String file, int line, int col, String message, String sourceLine) {
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
      sb.append('\n').append(sourceLine).append('\n');
      sb.append(" ".repeat(Math.max(0, col - 1))).append('^');
    }
    return sb.toString();
  }
}
