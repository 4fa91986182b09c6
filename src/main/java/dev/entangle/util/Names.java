package dev.entangle.util;

/** Names and texts quoted in messages, shortened so that a huge name cannot flood a message. */
public final class Names {
  /** The longest text quoted whole. */
  public static final int MAX = 120;

  private Names() {}

  /** The longest run of non-blank characters a message keeps whole. */
  public static final int MAX_WORD = 200;

  /**
   * {@code message} with every run of non-blank characters longer than {@link #MAX_WORD} shortened:
   * a huge name cannot flood a message, however it got there.
   */
  public static String shortenWords(String message) {
    if (message == null || message.length() <= MAX_WORD) {
      return message;
    }
    StringBuilder out = new StringBuilder(Math.min(message.length(), 4096));
    int i = 0;
    while (i < message.length()) {
      int j = i;
      boolean blank = Character.isWhitespace(message.charAt(i));
      while (j < message.length() && Character.isWhitespace(message.charAt(j)) == blank) {
        j++;
      }
      String run = message.substring(i, j);
      out.append(blank || run.length() <= MAX_WORD ? run : shorten(run));
      i = j;
    }
    return out.toString();
  }

  /** The longest line a message keeps whole. */
  public static final int MAX_LINE = 1000;

  /**
   * A message fit to print: long words shortened ({@link #shortenWords}), then every line longer
   * than {@link #MAX_LINE} cut to its start and end.
   */
  public static String forMessage(String message) {
    String m = shortenWords(message);
    if (m == null || m.length() <= MAX_LINE) {
      return m;
    }
    StringBuilder out = new StringBuilder();
    for (String line : m.split("\n", -1)) {
      if (out.length() > 0) {
        out.append('\n');
      }
      if (line.length() <= MAX_LINE) {
        out.append(line);
      } else {
        int keep = MAX_LINE / 2 - 20;
        out.append(line, 0, keep)
            .append("...(")
            .append(line.length() - 2 * keep)
            .append(" characters)...")
            .append(line, line.length() - keep, line.length());
      }
    }
    return out.toString();
  }

  /** {@code s} itself when short, else its start and end around a count of what was left out. */
  public static String shorten(String s) {
    if (s == null || s.length() <= MAX) {
      return s;
    }
    int keep = MAX / 2 - 10;
    return s.substring(0, keep)
        + "...("
        + (s.length() - 2 * keep)
        + " characters)..."
        + s.substring(s.length() - keep);
  }
}
