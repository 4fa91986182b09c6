package dev.entangle.eval;

import dev.entangle.core.numeric.Tensor;
import dev.entangle.core.numeric.Tolerance;
import java.util.Arrays;

/**
 * How a candidate differs from a target of the same element count, element by element in the
 * target's order.
 *
 * @param index the target index of the first element outside tolerance (of the largest difference
 *     when all are within), or null when the target has no elements
 * @param candidate the candidate's element there
 * @param target the target's element there
 * @param maxAbs the largest absolute difference (infinite where NaN or an infinity is unmatched)
 * @param maxRelative the largest difference relative to the target element's magnitude
 * @param differing how many elements lie outside tolerance
 * @param relativeError {@code ||candidate - target|| / ||target||} over finite elements, infinite
 *     when some non-finite element is unmatched: how candidates are ranked
 */
public record Difference(
    long[] index,
    double candidate,
    double target,
    double maxAbs,
    double maxRelative,
    long differing,
    double relativeError) {

  /** Whether every element is within tolerance. */
  public boolean matches() {
    return differing == 0;
  }

  /** Compares a candidate with a target of the same element count, under the target's tolerance. */
  public static Difference of(Tensor candidate, Tensor target) {
    if (candidate.numel() != target.numel()) {
      throw new IllegalArgumentException(
          "a candidate of " + candidate.numel() + " elements for a target of " + target.numel());
    }
    return between(candidate.raw(), target, Tolerance.of(target));
  }

  /** Compares {@code c} (row-major in the target's order) with {@code t} under {@code tol}. */
  public static Difference between(double[] c, Tensor t, Tolerance tol) {
    double[] v = t.raw();
    int first = -1;
    int largest = -1;
    double maxAbs = 0;
    double maxRel = 0;
    long differing = 0;
    double num = 0;
    double den = 0;
    boolean unmatched = false;
    for (int i = 0; i < v.length; i++) {
      double a = c[i];
      double b = v[i];
      double d = Math.abs(a - b);
      boolean close = tol.close(a, b);
      if (!close) {
        differing++;
        if (first < 0) {
          first = i;
        }
      }
      if (!Double.isFinite(a) || !Double.isFinite(b)) {
        if (!close) {
          unmatched = true;
          d = Double.POSITIVE_INFINITY;
        } else {
          d = 0;
        }
      } else {
        num += d * d;
        den += b * b;
      }
      if (largest < 0 || d > maxAbs) {
        maxAbs = d;
        largest = i;
      }
      double rel = d == 0 ? 0 : d / Math.max(Math.abs(b), Double.MIN_NORMAL);
      maxRel = Math.max(maxRel, rel);
    }
    int at = first >= 0 ? first : largest;
    double relError =
        unmatched
            ? Double.POSITIVE_INFINITY
            : num == 0 ? 0 : Math.sqrt(num) / Math.max(Math.sqrt(den), Double.MIN_NORMAL);
    return new Difference(
        at < 0 ? null : Tensor.unflatten(t.rawShape(), at),
        at < 0 ? Double.NaN : c[at],
        at < 0 ? Double.NaN : v[at],
        maxAbs,
        maxRel,
        differing,
        relError);
  }

  @Override
  public String toString() {
    return (index == null
            ? "no elements"
            : "at " + Arrays.toString(index) + ": " + candidate + " vs " + target)
        + ", max abs difference "
        + maxAbs
        + ", max relative difference "
        + maxRelative
        + ", "
        + differing
        + " element(s) outside tolerance";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Difference d
        && Arrays.equals(index, d.index)
        && Double.compare(candidate, d.candidate) == 0
        && Double.compare(target, d.target) == 0
        && Double.compare(maxAbs, d.maxAbs) == 0
        && Double.compare(maxRelative, d.maxRelative) == 0
        && differing == d.differing
        && Double.compare(relativeError, d.relativeError) == 0;
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(index) * 31 + Long.hashCode(differing);
  }
}
