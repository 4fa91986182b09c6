package dev.entangle.eval;

import dev.entangle.core.numeric.Tolerance;

/**
 * Sums over a tensor's elements that no permutation or reshape changes, so that a candidate whose
 * fingerprint is too far from the target's cannot equal it under any of them: counts of NaN and
 * infinities, and the sum, sum of magnitudes and sum of squares of the finite elements.
 */
public record Fingerprint(
    long count,
    long nan,
    long posInf,
    long negInf,
    double sum,
    double sumAbs,
    double sumSq,
    double maxAbs) {
  private static final double EPS = Math.ulp(1.0);

  public static Fingerprint of(double[] v) {
    long nan = 0;
    long pos = 0;
    long neg = 0;
    double sum = 0;
    double abs = 0;
    double sq = 0;
    double max = 0;
    for (double x : v) {
      if (Double.isNaN(x)) {
        nan++;
      } else if (x == Double.POSITIVE_INFINITY) {
        pos++;
      } else if (x == Double.NEGATIVE_INFINITY) {
        neg++;
      } else {
        sum += x;
        abs += Math.abs(x);
        sq += x * x;
        max = Math.max(max, Math.abs(x));
      }
    }
    return new Fingerprint(v.length, nan, pos, neg, sum, abs, sq, max);
  }

  /**
   * Whether some arrangement of these elements may equal the other's within {@code tol}:
   * element-wise closeness bounds the difference of the sums by {@code n atol + rtol (sum|a| +
   * sum|b|)} and that of the sums of squares by {@code (atol + rtol max|.|) (sum|a| + sum|b|)};
   * rounding of the sums themselves is allowed for.
   */
  public boolean mayEqual(Fingerprint o, Tolerance tol) {
    if (count != o.count || nan != o.nan || posInf != o.posInf || negInf != o.negInf) {
      return false;
    }
    double abs = sumAbs + o.sumAbs;
    double rounding = 2 * EPS * count;
    double sumSlack = count * tol.atol() + tol.rtol() * abs + rounding * abs;
    if (Math.abs(sum - o.sum) > sumSlack) {
      return false;
    }
    double m = Math.max(maxAbs, o.maxAbs);
    double sqSlack = tol.slack(m) * abs + rounding * (sumSq + o.sumSq);
    return Math.abs(sumSq - o.sumSq) <= sqSlack;
  }
}
