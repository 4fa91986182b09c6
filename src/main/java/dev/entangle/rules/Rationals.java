package dev.entangle.rules;

import dev.entangle.util.Fractions;

/**
 * Constants as the small rationals they round: a model's constants come from its sizes (1/24 for a
 * mean over 24 elements, 1/2 for an average over two ranks), and a double constant stands for the
 * simplest fraction with a denominator up to {@link #MAX_DENOMINATOR} that rounds to it. Products
 * and reciprocals are taken exactly on those fractions and rounded once, so every way of folding
 * the same constants gives the same double. A constant that is no such fraction is not folded.
 */
public final class Rationals {
  /**
   * The largest denominator a constant may stand for; two such fractions are far apart in doubles.
   */
  static final long MAX_DENOMINATOR = 1L << 20;

  /**
   * The largest numerator: numerators and denominators stay exact in doubles and their products in
   * longs.
   */
  static final long MAX_NUMERATOR = 1L << 31;

  private Rationals() {}

  /**
   * {numerator, denominator > 0} of the simplest small fraction that rounds to x; null when none.
   */
  public static long[] of(double x) {
    if (!Double.isFinite(x) || Math.abs(x) > MAX_NUMERATOR) {
      return null;
    }
    // continued fraction convergents h/k of |x|
    double a = Math.abs(x);
    long h0 = 1;
    long h1 = (long) Math.floor(a);
    long k0 = 0;
    long k1 = 1;
    double rest = a - Math.floor(a);
    for (int i = 0; i < 64; i++) {
      if ((double) h1 / k1 == a) {
        return new long[] {x < 0 ? -h1 : h1, k1};
      }
      if (rest == 0) {
        return null;
      }
      double inv = 1 / rest;
      long q = (long) Math.floor(inv);
      rest = inv - q;
      long h2 = q * h1 + h0;
      long k2 = q * k1 + k0;
      if (k2 > MAX_DENOMINATOR || h2 > MAX_NUMERATOR || k2 <= 0) {
        return null;
      }
      h0 = h1;
      h1 = h2;
      k0 = k1;
      k1 = k2;
    }
    return null;
  }

  /**
   * The double nearest the exact product of the fractions x and y stand for; null when either is
   * none.
   */
  static Double product(double x, double y) {
    long[] a = of(x);
    long[] b = of(y);
    if (a == null || b == null) {
      return null;
    }
    long g1 = Fractions.gcd(Math.abs(a[0]), b[1]);
    long g2 = Fractions.gcd(Math.abs(b[0]), a[1]);
    long p = (a[0] / g1) * (b[0] / g2);
    long q = (a[1] / g2) * (b[1] / g1);
    return fraction(p, q);
  }

  /** The double nearest 1/r for the fraction r that x stands for; null when none or zero. */
  static Double reciprocal(double x) {
    long[] a = of(x);
    if (a == null || a[0] == 0) {
      return null;
    }
    return fraction(a[0] < 0 ? -a[1] : a[1], Math.abs(a[0]));
  }

  private static Double fraction(long p, long q) {
    if (Math.abs(p) > MAX_NUMERATOR * MAX_DENOMINATOR || q > MAX_DENOMINATOR * MAX_DENOMINATOR) {
      return null;
    }
    long g = Fractions.gcd(Math.abs(p), q);
    p /= g;
    q /= g;
    if (q > MAX_DENOMINATOR || Math.abs(p) > MAX_NUMERATOR) {
      return null; // a fraction a constant could not stand for: folding it would not be
      // reproducible
    }
    return (double) p / q;
  }
}
