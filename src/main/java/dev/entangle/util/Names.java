package dev.entangle.util;

/** Names and texts quoted in messages, shortened so that a huge name cannot flood a message. */
public final class Names {
  /** The longest text quoted whole. */
  public static final int MAX = 120;

  private Names() {}

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
