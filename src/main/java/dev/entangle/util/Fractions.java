package dev.entangle.util;

/** Integer helpers for exact fractions (scale factors, rational coefficients). */
public final class Fractions {
  private Fractions() {}

  /** The greatest common divisor of two non-negative numbers; 1 when both are 0. */
  public static long gcd(long a, long b) {
    while (b != 0) {
      long t = a % b;
      a = b;
      b = t;
    }
    return a == 0 ? 1 : a;
  }
}
