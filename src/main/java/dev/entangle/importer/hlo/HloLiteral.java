package dev.entangle.importer.hlo;

import java.util.ArrayList;
import java.util.List;

/**
 * The values of a {@code constant(...)} literal as printed: a scalar ({@code 1e-05}, {@code -inf},
 * {@code true}) or nested braces of numbers ({@code {1, 2}}, {@code { {1,2}, {3,4} }}), row-major.
 * Elided literals ({@code {...}}) and forms this reader does not know (complex numbers) have no
 * values.
 */
final class HloLiteral {
  private HloLiteral() {}

  /** Whether the dump elided the literal's values. */
  static boolean isElided(String text) {
    return text.contains("...");
  }

  /**
   * The values, row-major, or null when they are elided or unreadable, or when their count does not
   * match the type.
   */
  static double[] values(String text, HloType.Array type) {
    if (isElided(text)) {
      return null;
    }
    List<Double> out = new ArrayList<>();
    StringBuilder token = new StringBuilder();
    for (int i = 0; i <= text.length(); i++) {
      char c = i < text.length() ? text.charAt(i) : ',';
      if (c == '{' || c == '}' || c == ',' || Character.isWhitespace(c)) {
        if (token.length() > 0) {
          Double v = number(token.toString());
          if (v == null) {
            return null;
          }
          out.add(v);
          token.setLength(0);
        }
      } else {
        token.append(c);
      }
    }
    if (out.size() != type.numel()) {
      return null;
    }
    return out.stream().mapToDouble(Double::doubleValue).toArray();
  }

  /** One printed number, or null. */
  static Double number(String t) {
    return switch (t) {
      case "true" -> 1.0;
      case "false" -> 0.0;
      case "inf", "+inf" -> Double.POSITIVE_INFINITY;
      case "-inf" -> Double.NEGATIVE_INFINITY;
      case "nan", "-nan", "+nan" -> Double.NaN;
      default -> {
        try {
          yield Double.parseDouble(t);
        } catch (NumberFormatException e) {
          yield null;
        }
      }
    };
  }
}
