package dev.entangle.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * What the analysis knows about an e-class: the tensor's shape and dtype, its value when every
 * element is one known constant, or the item types of an opaque operator's tuple result.
 *
 * @param shape sizes, or null for a tuple
 * @param dtype a {@link Dtype} code (-1 when unknown)
 * @param constant the value of every element when known, else null
 * @param items item types for a tuple, else null
 */
public record TypeInfo(long[] shape, int dtype, Double constant, List<TypeInfo> items) {

  public static TypeInfo tensor(long[] shape, int dtype) {
    return new TypeInfo(shape, dtype, null, null);
  }

  public static TypeInfo constant(long[] shape, int dtype, double value) {
    return new TypeInfo(shape, dtype, value, null);
  }

  public static TypeInfo tuple(List<TypeInfo> items) {
    return new TypeInfo(null, -1, null, Collections.unmodifiableList(new ArrayList<>(items)));
  }

  public boolean isTuple() {
    return items != null;
  }

  public int rank() {
    return shape.length;
  }

  public long size(int dim) {
    return shape[dim];
  }

  public long numel() {
    long n = 1;
    for (long s : shape) {
      n *= s;
    }
    return n;
  }

  public TypeInfo withConstant(Double value) {
    return new TypeInfo(shape, dtype, value, items);
  }

  /** Same shape (and same item shapes for tuples). */
  public boolean sameShape(TypeInfo o) {
    if (isTuple() || o.isTuple()) {
      if (!isTuple() || !o.isTuple() || items.size() != o.items.size()) {
        return false;
      }
      for (int i = 0; i < items.size(); i++) {
        TypeInfo a = items.get(i);
        TypeInfo b = o.items.get(i);
        if ((a == null) != (b == null) || (a != null && !a.sameShape(b))) {
          return false;
        }
      }
      return true;
    }
    return Arrays.equals(shape, o.shape);
  }

  @Override
  public String toString() {
    if (isTuple()) {
      return "tuple" + items;
    }
    return Dtype.name(dtype) + Arrays.toString(shape) + (constant != null ? "=" + constant : "");
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TypeInfo t
        && Arrays.equals(shape, t.shape)
        && dtype == t.dtype
        && Objects.equals(constant, t.constant)
        && Objects.equals(items, t.items);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(shape) * 31 + dtype;
  }
}
