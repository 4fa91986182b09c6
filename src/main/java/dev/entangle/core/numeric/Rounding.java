package dev.entangle.core.numeric;

import dev.entangle.core.Dtype;

/**
 * Conversion of a double to the value a dtype holds, as {@code tensor.to(dtype)} does: floats round
 * to nearest, ties to even (float16 and bfloat16 with their subnormals and overflow to infinity);
 * integers truncate toward zero and wrap to their width; booleans are whether the value is not 0.
 */
public final class Rounding {
  private static final double FLOAT16_MAX = 65504.0;
  private static final double BFLOAT16_MAX = 0x1.FEp127;

  private Rounding() {}

  /** Whether values of this dtype are held exactly as rounded integers (ints and bool). */
  public static boolean isIntegral(int dtype) {
    return switch (Dtype.name(dtype)) {
      case "int64", "int32", "int16", "int8", "uint8", "bool" -> true;
      default -> false;
    };
  }

  /** Whether the evaluator has numbers for this dtype (not complex, not float8). */
  public static boolean isSupported(int dtype) {
    return switch (Dtype.name(dtype)) {
      case "float32",
          "float16",
          "bfloat16",
          "float64",
          "int64",
          "int32",
          "int16",
          "int8",
          "uint8",
          "bool" ->
          true;
      default -> false;
    };
  }

  /** {@code v} converted to {@code dtype}. */
  public static double to(int dtype, double v) {
    return switch (Dtype.name(dtype)) {
      case "float64" -> v;
      case "float32" -> (double) (float) v;
      case "float16" -> toBinary(v, 10, -14, FLOAT16_MAX);
      case "bfloat16" -> toBinary(v, 7, -126, BFLOAT16_MAX);
      case "bool" -> v != 0 ? 1 : 0;
      case "int64" -> integral(v, dtype);
      case "int32" -> (int) integral(v, dtype);
      case "int16" -> (short) integral(v, dtype);
      case "int8" -> (byte) integral(v, dtype);
      case "uint8" -> integral(v, dtype) & 0xFF;
      default ->
          throw new EvalException("the evaluator has no numbers for dtype " + Dtype.name(dtype));
    };
  }

  /** The largest finite value of a floating dtype. */
  public static double maxFinite(int dtype) {
    return switch (Dtype.name(dtype)) {
      case "float16" -> FLOAT16_MAX;
      case "bfloat16" -> BFLOAT16_MAX;
      case "float32" -> Float.MAX_VALUE;
      default -> Double.MAX_VALUE;
    };
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
