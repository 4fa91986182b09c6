package dev.entangle.util;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The known names close to a misspelled one, for messages that end in "did you mean ...?": names at
 * a small edit distance for the name's length (insertions, deletions, substitutions, case ignored),
 * then names that begin with the misspelled one.
 */
public final class DidYouMean {
  private DidYouMean() {}

  /**
   * {@code " (did you mean 'NAME'?)"} or {@code " (did you mean 'A' or 'B'?)"}, or the empty string
   * when no known name is close.
   */
  public static String hint(String name, Collection<String> known) {
    List<String> close = closest(name, known);
    if (close.isEmpty()) {
      return "";
    }
    StringBuilder b = new StringBuilder(" (did you mean ");
    for (int i = 0; i < close.size(); i++) {
      b.append(i == 0 ? "" : i == close.size() - 1 ? " or " : ", ")
          .append('\'')
          .append(close.get(i))
          .append('\'');
    }
    return b.append("?)").toString();
  }

  /**
   * Up to three known names close to {@code name}, closest first: those within a small edit
   * distance for the name's length, then those that begin with it.
   */
  public static List<String> closest(String name, Collection<String> known) {
    String lower = name.toLowerCase(Locale.ROOT);
    int limit = Math.max(1, Math.min(3, lower.length() / 3));
    TreeMap<Integer, TreeSet<String>> byDistance = new TreeMap<>();
    for (String k : known) {
      String kl = k.toLowerCase(Locale.ROOT);
      if (k.equals(name)) {
        continue;
      }
      int d = distance(lower, kl);
      if (d <= limit) {
        byDistance.computeIfAbsent(d, x -> new TreeSet<>()).add(k);
      } else if (lower.length() >= 2 && kl.startsWith(lower)) {
        byDistance.computeIfAbsent(limit + 1, x -> new TreeSet<>()).add(k);
      }
    }
    List<String> out = new ArrayList<>();
    byDistance.values().forEach(out::addAll);
    return out.size() > 3 ? out.subList(0, 3) : out;
  }

  /** The edit distance of two strings. */
  static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int sub = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        cur[j] = Math.min(sub, Math.min(prev[j] + 1, cur[j - 1] + 1));
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}
