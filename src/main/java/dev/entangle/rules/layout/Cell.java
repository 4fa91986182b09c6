package dev.entangle.rules.layout;

import java.util.Arrays;

/**
 * One box of a {@link BlockMap}: every output element {@code i} in the box is element {@code base +
 * Σ_d strides[d] · i[d]} (in row-major order, {@code i} counted from the output's origin) of the
 * source class {@code source}. A stride of 0 repeats a source element (a broadcast); along a dim
 * where the box is one element wide the stride is always 0, its part folded into the base.
 */
public final class Cell {
  private final int source;
  private final long base;
  private final long[] strides;

  Cell(int source, long base, long[] strides) {
    this.source = source;
    this.base = base;
    this.strides = strides;
  }

  /** The source e-class. */
  public int source() {
    return source;
  }

  /** The source element at the output's origin (extended affinely). */
  public long base() {
    return base;
  }

  /** The source step per output step along dim d. */
  public long stride(int d) {
    return strides[d];
  }

  long[] strides() {
    return strides;
  }

  Cell with(long newBase, long[] newStrides) {
    return new Cell(source, newBase, newStrides);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Cell c
        && c.source == source
        && c.base == base
        && Arrays.equals(c.strides, strides);
  }

  @Override
  public int hashCode() {
    return (source * 31 + Long.hashCode(base)) * 31 + Arrays.hashCode(strides);
  }

  @Override
  public String toString() {
    return "%" + source + "@" + base + Arrays.toString(strides);
  }
}
