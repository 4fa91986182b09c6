package dev.entangle.numbers.sampling;

import dev.entangle.core.numeric.Tensor;
import dev.entangle.core.numeric.Tolerance;
import java.util.Arrays;

/**
 * A tensor some of whose elements are known: what relation inversion knows of a G_d tensor so far.
 */
final class Partial {
  final long[] shape;
  final int dtype;
  final double[] values;
  final boolean[] known;

  private Partial(long[] shape, int dtype, double[] values, boolean[] known) {
    this.shape = shape;
    this.dtype = dtype;
    this.values = values;
    this.known = known;
  }

  static Partial unknown(long[] shape, int dtype) {
    int n = Tensor.checkedNumel(shape);
    return new Partial(shape.clone(), dtype, new double[n], new boolean[n]);
  }

  static Partial of(Tensor t) {
    boolean[] known = new boolean[t.numel()];
    Arrays.fill(known, true);
    return new Partial(t.shape(), t.dtype(), t.values(), known);
  }

  int numel() {
    return values.length;
  }

  int knownCount() {
    int n = 0;
    for (boolean k : known) {
      n += k ? 1 : 0;
    }
    return n;
  }

  boolean complete() {
    return knownCount() == values.length;
  }

  /** The same elements with another shape of the same element count. */
  Partial reshaped(long[] newShape) {
    return new Partial(newShape.clone(), dtype, values, known);
  }

  /** The partial whose element i is this one's element {@code map[i]}. */
  Partial gather(int[] map, long[] outShape) {
    Partial out = unknown(outShape, dtype);
    for (int i = 0; i < map.length; i++) {
      out.values[i] = values[map[i]];
      out.known[i] = known[map[i]];
    }
    return out;
  }

  /**
   * A partial of shape {@code outShape} knowing, at {@code map[i]}, this one's element i where
   * known.
   */
  Partial scatter(int[] map, long[] outShape) {
    Partial out = unknown(outShape, dtype);
    for (int i = 0; i < map.length; i++) {
      if (known[i]) {
        out.values[map[i]] = values[i];
        out.known[map[i]] = true;
      }
    }
    return out;
  }

  /**
   * Takes the elements {@code from} knows and this one does not; where both know an element, they
   * must agree within {@code tol}.
   *
   * @return the position of the first element where they disagree (left as it was), or -1
   */
  int absorb(Partial from, Tolerance tol) {
    for (int i = 0; i < values.length; i++) {
      if (!from.known[i]) {
        continue;
      }
      if (known[i] && !tol.close(values[i], from.values[i])) {
        return i;
      }
      values[i] = from.values[i];
      known[i] = true;
    }
    return -1;
  }

  /** The tensor, once every element is known. */
  Tensor toTensor() {
    return new Tensor(shape.clone(), dtype, values.clone());
  }

  /** The root mean square of the known finite elements, the scale for tolerances. */
  double rms() {
    double sq = 0;
    long n = 0;
    for (int i = 0; i < values.length; i++) {
      if (known[i] && Double.isFinite(values[i])) {
        sq += values[i] * values[i];
        n++;
      }
    }
    return n == 0 ? 0 : Math.sqrt(sq / n);
  }
}
