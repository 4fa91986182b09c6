package dev.entangle.core.numeric;

import dev.entangle.core.Dtype;

/**
 * Conversion of a double to the value a dtype holds, as {@code tensor.to(dtype)} does: floats round
 * to nearest, ties to even (float16 and bfloat16 with their subnormals and overflow to infinity);
 * integers truncate toward zero and wrap to their width; booleans are whether the value is not 0.
 */
public final class Rounding {
  private Rounding() {}

  /** Whether values of this dtype are held exactly as rounded integers (ints and bool). */
  public static boolean isIntegral(int dtype) {
    Dtype d = Dtype.of(dtype);
    return d != null && d.isIntegral();
  }

  /** Whether the evaluator has numbers for this dtype (not complex, not float8). */
  public static boolean isSupported(int dtype) {
    Dtype d = Dtype.of(dtype);
    return d != null && d.hasNumbers();
  }

  /** {@code v} converted to {@code dtype}. */
  public static double to(int dtype, double v) {
    Dtype d = Dtype.of(dtype);
    if (d == null) {
      throw new EvalException("the evaluator has no numbers for dtype " + Dtype.name(dtype));
    }
    return switch (d) {
      case FLOAT64 -> v;
      case FLOAT32 -> (double) (float) v;
      case FLOAT16 -> toBinary(v, 10, -14, Dtype.FLOAT16.maxFinite());
      case BFLOAT16 -> toBinary(v, 7, -126, Dtype.BFLOAT16.maxFinite());
      case BOOL -> v != 0 ? 1 : 0;
      case INT64 -> integral(v, dtype);
      case INT32 -> (int) integral(v, dtype);
      case INT16 -> (short) integral(v, dtype);
      case INT8 -> (byte) integral(v, dtype);
      case UINT8 -> integral(v, dtype) & 0xFF;
      default ->
          throw new EvalException("the evaluator has no numbers for dtype " + Dtype.name(dtype));
    };
  }

  /** The largest finite value of a floating dtype. */
  public static double maxFinite(int dtype) {
    Dtype d = Dtype.of(dtype);
    return d == null ? Double.MAX_VALUE : d.maxFinite();
  }

  /** Truncation toward zero of a finite value; NaN and infinities have no integer value. */
  private static long integral(double v, int dtype) {
    if (!Double.isFinite(v)) {
      throw new EvalException("cannot convert " + v + " to " + Dtype.name(dtype));
    }
    return (long) v;
  }

  /**
   * Rounds to a binary float with {@code mantissa} stored bits and smallest normal exponent {@code
   * minExp}: the quantum is 2^(e - mantissa) for a normal value of exponent e, 2^(minExp -
   * mantissa) below; then values past {@code max} overflow to infinity.
   */
  private static double toBinary(double v, int mantissa, int minExp, double max) {
    if (!Double.isFinite(v) || v == 0) {
      return v;
    }
    int e = Math.max(Math.getExponent(v), minExp);
    double quantum = Math.scalb(1.0, e - mantissa);
    double r = Math.rint(v / quantum) * quantum;
    if (Math.abs(r) > max) {
      return Math.copySign(Double.POSITIVE_INFINITY, v);
    }
    return r == 0 ? Math.copySign(0.0, v) : r;
  }
}
