package dev.entangle.core.numeric;

/** The error function and the Gaussian helpers the GELU family needs, to double precision. */
public final class SpecialFunctions {
  private static final double TWO_OVER_SQRT_PI = 2 / Math.sqrt(Math.PI);
  private static final double ONE_OVER_SQRT_PI = 1 / Math.sqrt(Math.PI);
  private static final double SQRT_HALF = Math.sqrt(0.5);
  private static final double ONE_OVER_SQRT_2PI = 1 / Math.sqrt(2 * Math.PI);

  /** Below this |x| the series, above it the continued fraction. */
  private static final double SERIES_LIMIT = 2.5;

  private static final int FRACTION_TERMS = 120;

  private SpecialFunctions() {}

  public static double erf(double x) {
    if (Double.isNaN(x)) {
      return x;
    }
    double a = Math.abs(x);
    double r = a < SERIES_LIMIT ? series(a) : 1 - fraction(a);
    return Math.copySign(r, x);
  }

  public static double erfc(double x) {
    if (Double.isNaN(x)) {
      return x;
    }
    if (x < SERIES_LIMIT) {
      return 1 - erf(x);
    }
    return fraction(x);
  }

  /** The standard normal CDF: {@code (1 + erf(x / sqrt 2)) / 2}. */
  public static double normalCdf(double x) {
    return x < -SERIES_LIMIT / SQRT_HALF
        ? 0.5 * fraction(-x * SQRT_HALF)
        : 0.5 * (1 + erf(x * SQRT_HALF));
  }

  /** The standard normal density. */
  public static double normalPdf(double x) {
    return ONE_OVER_SQRT_2PI * Math.exp(-0.5 * x * x);
  }

  /**
   * erf(a) for 0 <= a < 2.5: {@code 2/sqrt(pi) e^{-a^2} sum 2^n a^{2n+1} / (1 3 5 ... (2n+1))}, all
   * terms positive.
   */
  private static double series(double a) {
    double term = a;
    double sum = a;
    double twoA2 = 2 * a * a;
    for (int n = 1; n < 200; n++) {
      term *= twoA2 / (2 * n + 1);
      sum += term;
      if (term < 1e-17 * sum) {
        break;
      }
    }
    return TWO_OVER_SQRT_PI * Math.exp(-a * a) * sum;
  }

  /**
   * erfc(a) for a >= 2.5 by Laplace's continued fraction {@code e^{-a^2}/sqrt(pi) / (a + (1/2)/(a +
   * 1/(a + (3/2)/(a + ...))))}, evaluated from a fixed depth.
   */
  private static double fraction(double a) {
    double t = a;
    for (int k = FRACTION_TERMS; k >= 1; k--) {
      t = a + (k / 2.0) / t;
    }
    return ONE_OVER_SQRT_PI * Math.exp(-a * a) / t;
  }
}
