package dev.entangle.core.numeric;

import dev.entangle.core.Dtype;

/**
 * When two values count as equal: {@code |a - b| <= atol + rtol * max(|a|, |b|)}, NaN equal to NaN
 * and an infinity to the same infinity.
 *
 * <p>Both sides are computed in double ({@link Tensor}), so they differ only by the order of sums
 * and by where each rounds to its dtype (a {@code cast}); {@link #forDtype} allows a few units in
 * the last place of the dtype, and {@link #scaledTo} adds an absolute part proportional to the
 * target's root mean square, for elements that cancel to near zero. Integers and booleans are
 * compared exactly.
 */
public record Tolerance(double rtol, double atol) {

  /** The relative tolerance for values of a dtype. */
  public static Tolerance forDtype(int dtype) {
    double rtol =
        switch (Dtype.name(dtype)) {
          case "float64" -> 1e-9;
          case "float32" -> 1e-5;
          case "float16" -> 4e-3;
          case "bfloat16" -> 3e-2;
          default -> 0;
        };
    return new Tolerance(rtol, 0);
  }

  /**
   * The tolerance for comparing with {@code target}: its dtype's, with an absolute part from its
   * scale.
   */
  public static Tolerance of(Tensor target) {
    return forDtype(target.dtype()).scaledTo(target);
  }

  /** This relative tolerance with {@code atol = rtol * rms(target)} (finite elements). */
  public Tolerance scaledTo(Tensor target) {
    double sq = 0;
    long n = 0;
    for (double v : target.raw()) {
      if (Double.isFinite(v)) {
        sq += v * v;
        n++;
      }
    }
    return scaledTo(n == 0 ? 0 : Math.sqrt(sq / n));
  }

  /** This relative tolerance with {@code atol = rtol * scale} (unless atol is larger already). */
  public Tolerance scaledTo(double scale) {
    return new Tolerance(rtol, Math.max(atol, rtol * scale));
  }

  /** Whether {@code a} and {@code b} count as equal. */
  public boolean close(double a, double b) {
    if (a == b) {
      return true;
    }
    if (Double.isNaN(a) || Double.isNaN(b)) {
      return Double.isNaN(a) && Double.isNaN(b);
    }
    if (Double.isInfinite(a) || Double.isInfinite(b)) {
      return false;
    }
    return Math.abs(a - b) <= atol + rtol * Math.max(Math.abs(a), Math.abs(b));
  }

  /**
   * The largest difference {@link #close} accepts between values of magnitude at most {@code m}.
   */
  public double slack(double m) {
    return atol + rtol * m;
  }
}
