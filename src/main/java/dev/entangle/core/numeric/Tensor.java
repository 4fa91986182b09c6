package dev.entangle.core.numeric;

import dev.entangle.core.Dtype;
import java.util.Arrays;

/**
 * A dense tensor: row-major elements, a shape and a {@link Dtype} code.
 *
 * <p>Rounding model: every element is held as a {@code double}, whatever the dtype, and every
 * kernel computes in double. Integers and booleans (0 or 1) are held exactly (integers up to 2^53).
 * Floating values are rounded to their dtype only where the program says so, at a {@link
 * dev.entangle.core.Op#CAST}; so a float16, bfloat16 or float32 value here is the double-precision
 * value of the same computation, and comparisons between two computations that round at different
 * places need a tolerance fit for the dtype ({@link Tolerance}).
 *
 * <p>Instances are immutable by contract: kernels write only into tensors they have just made.
 */
public final class Tensor {
  /** The most elements one tensor may hold (one Java array). */
  public static final long MAX_ELEMENTS = Integer.MAX_VALUE - 8;

  private final long[] shape;
  private final int dtype;
  private final double[] data;

  public Tensor(long[] shape, int dtype, double[] data) {
    this.shape = shape;
    this.dtype = dtype;
    this.data = data;
  }

  /** A tensor of the given shape and dtype holding {@code values} in row-major order. */
  public static Tensor of(int dtype, long[] shape, double... values) {
    if (values.length != numel(shape)) {
      throw new IllegalArgumentException(
          "shape "
              + Arrays.toString(shape)
              + " holds "
              + numel(shape)
              + " elements, not "
              + values.length);
    }
    return new Tensor(shape.clone(), dtype, values.clone());
  }

  /** A float32 tensor. */
  public static Tensor floats(long[] shape, double... values) {
    return of(Dtype.FLOAT32.code(), shape, values);
  }

  /** A 0-d tensor. */
  public static Tensor scalar(int dtype, double value) {
    return new Tensor(new long[0], dtype, new double[] {value});
  }

  /** A tensor of zeros. */
  public static Tensor zeros(int dtype, long[] shape) {
    return new Tensor(shape.clone(), dtype, new double[checkedNumel(shape)]);
  }

  public long[] shape() {
    return shape.clone();
  }

  public int dtype() {
    return dtype;
  }

  public int rank() {
    return shape.length;
  }

  public long size(int dim) {
    return shape[dim];
  }

  public int numel() {
    return data.length;
  }

  /** The element at a row-major position. */
  public double at(int flat) {
    return data[flat];
  }

  /** The element at a multi-dimensional index. */
  public double get(long... index) {
    return data[flatIndex(shape, index)];
  }

  /** A copy of the elements, row-major. */
  public double[] values() {
    return data.clone();
  }

  /** The elements themselves, for kernels; never to be written. */
  public double[] raw() {
    return data;
  }

  /** The shape itself, for kernels; never to be written. */
  public long[] rawShape() {
    return shape;
  }

  /** The same elements viewed with another shape of the same element count. */
  public Tensor reshaped(long[] newShape) {
    if (numel(newShape) != data.length) {
      throw new IllegalArgumentException(
          "cannot view " + Arrays.toString(shape) + " as " + Arrays.toString(newShape));
    }
    return new Tensor(newShape.clone(), dtype, data);
  }

  /** The same elements with another dtype code (no rounding). */
  public Tensor withDtype(int newDtype) {
    return newDtype == dtype ? this : new Tensor(shape, newDtype, data);
  }

  /** Whether both have the same shape, dtype and elements (NaN equal to NaN). */
  public boolean sameAs(Tensor o) {
    return dtype == o.dtype && Arrays.equals(shape, o.shape) && Arrays.equals(data, o.data);
  }

  /** The number of elements of a shape. */
  public static long numel(long[] shape) {
    long n = 1;
    for (long s : shape) {
      n *= s;
    }
    return n;
  }

  /**
   * The element count of a shape as an array length, or an {@link EvalException} when too large.
   */
  public static int checkedNumel(long[] shape) {
    long n = 1;
    for (long s : shape) {
      if (s < 0) {
        throw new EvalException("a negative size in shape " + Arrays.toString(shape));
      }
      if (s == 0) {
        return 0;
      }
    }
    for (long s : shape) {
      if (n > MAX_ELEMENTS / s) {
        throw new EvalException(
            "a tensor of shape "
                + Arrays.toString(shape)
                + " has more elements than one array holds");
      }
      n *= s;
    }
    return (int) n;
  }

  /** Row-major strides of a shape. */
  public static long[] strides(long[] shape) {
    long[] st = new long[shape.length];
    long s = 1;
    for (int i = shape.length - 1; i >= 0; i--) {
      st[i] = s;
      s *= shape[i];
    }
    return st;
  }

  /** The row-major position of an index, which must lie within the shape. */
  public static int flatIndex(long[] shape, long[] index) {
    if (index.length != shape.length) {
      throw new IllegalArgumentException(
          "index of " + index.length + " dims into a " + shape.length + "-d tensor");
    }
    long flat = 0;
    for (int i = 0; i < shape.length; i++) {
      if (index[i] < 0 || index[i] >= shape[i]) {
        throw new IndexOutOfBoundsException(
            "index " + Arrays.toString(index) + " outside " + Arrays.toString(shape));
      }
      flat = flat * shape[i] + index[i];
    }
    return (int) flat;
  }

  /** The multi-dimensional index of a row-major position. */
  public static long[] unflatten(long[] shape, long flat) {
    long[] idx = new long[shape.length];
    for (int i = shape.length - 1; i >= 0; i--) {
      idx[i] = shape[i] == 0 ? 0 : flat % shape[i];
      flat = shape[i] == 0 ? 0 : flat / shape[i];
    }
    return idx;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Tensor t && sameAs(t);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(shape) * 31 + Arrays.hashCode(data);
  }

  @Override
  public String toString() {
    StringBuilder sb =
        new StringBuilder(Dtype.name(dtype)).append(Arrays.toString(shape)).append(' ');
    int shown = Math.min(data.length, 8);
    sb.append('[');
    for (int i = 0; i < shown; i++) {
      sb.append(i > 0 ? ", " : "").append(data[i]);
    }
    return sb.append(data.length > shown ? ", ...]" : "]").toString();
  }
}
