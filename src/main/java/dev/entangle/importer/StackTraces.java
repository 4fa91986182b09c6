package dev.entangle.importer;

/**
 * Turns the summary comments torch.fx prints before nodes back into the stack trace it recorded.
 * The comment {@code # File: PATH:LINE in FN, code: CODE} stands for the innermost frame of {@code
 * node.stack_trace}, which this restores in torch.fx's format: {@code File "PATH", line LINE, in
 * FN\n CODE}.
 */
final class StackTraces {
  static final String NO_TRACE = "No stacktrace found for following nodes";
  private static final String PREFIX = "File:";
  private static final String CODE = ", code: ";

  private StackTraces() {}

  /** Whether a comment's text (after {@code #}) is a stack trace summary. */
  static boolean isSummary(String comment) {
    return comment.startsWith(PREFIX);
  }

  /**
   * The stack trace a summary comment stands for, or null when it does not have the summary's
   * shape.
   */
  static String fromSummary(String comment) {
    String rest = comment.substring(PREFIX.length()).trim();
    int in = findLocationEnd(rest);
    if (in < 0) {
      return null;
    }
    int colon = rest.lastIndexOf(':', in - 1);
    String path = rest.substring(0, colon);
    String lineNo = rest.substring(colon + 1, in);
    String afterIn = rest.substring(in + " in ".length());
    int code = afterIn.indexOf(CODE);
    String fn;
    String codeText;
    if (code >= 0) {
      fn = afterIn.substring(0, code);
      codeText = afterIn.substring(code + CODE.length()).trim();
    } else if (afterIn.endsWith(",code:") || afterIn.endsWith(", code:")) {
      fn = afterIn.substring(0, afterIn.lastIndexOf(','));
      codeText = "";
    } else {
      return null;
    }
    if (path.isEmpty() || fn.isEmpty()) {
      return null;
    }
    return "File \"" + path + "\", line " + lineNo + ", in " + fn + "\n    " + codeText;
  }

  /** The index of the first {@code " in "} that follows {@code :DIGITS}, or -1. */
  private static int findLocationEnd(String s) {
    int from = 0;
    while (true) {
      int in = s.indexOf(" in ", from);
      if (in < 0) {
        return -1;
      }
      int d = in;
      while (d > 0 && Character.isDigit(s.charAt(d - 1))) {
        d--;
      }
      if (d < in && d > 0 && s.charAt(d - 1) == ':') {
        return in;
      }
      from = in + 1;
    }
  }
}
