package dev.entangle.core;

/**
 * A fact a relation states about an integer tensor: every element is an integer in {@code [lo,
 * hi)}, as token ids lie within a vocabulary. Checking reads it as the tensor equal to itself
 * clamped into the range, and numbers draw the tensor's elements from it.
 *
 * @param lo the least value an element may take
 * @param hi one more than the largest value an element may take (greater than {@code lo})
 */
public record IdRange(long lo, long hi) {
  public IdRange {
    if (hi <= lo) {
      throw new IllegalArgumentException("an empty range [" + lo + ", " + hi + ")");
    }
  }

  /** The range both this and {@code other} state, or null when they have no value in common. */
  public IdRange intersect(IdRange other) {
    long l = Math.max(lo, other.lo);
    long h = Math.min(hi, other.hi);
    return h > l ? new IdRange(l, h) : null;
  }

  @Override
  public String toString() {
    return "[" + lo + ", " + hi + ")";
  }
}
