package dev.entangle.cli;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * Numbers written with a fixed number of decimals, the same in every locale (a point, no grouping).
 * {@link String#format} would load the locale's number symbols first, a noticeable part of a small
 * check's run.
 */
final class Decimals {
  private Decimals() {}

  /** {@code value} rounded half up to {@code places} decimals, as {@code %.Nf} writes it. */
  static String fixed(double value, int places) {
    if (!Double.isFinite(value)) {
      return Double.toString(value);
    }
    return BigDecimal.valueOf(value).setScale(places, RoundingMode.HALF_UP).toPlainString();
  }
}
