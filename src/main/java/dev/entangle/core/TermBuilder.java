package dev.entangle.core;

import dev.entangle.core.numeric.Tensor;

/**
 * Where normalized terms are built: an e-graph, or a plain table that only infers types. Handles
 * are opaque ints meaningful to the builder.
 */
public interface TermBuilder {
  /** Adds {@code op(attrs; children)} and returns its handle. Throws {@link ShapeException}. */
  int add(int op, long[] attrs, int... children);

  /** The type of a handle. */
  TypeInfo type(int handle);

  default int add(Op op, long[] attrs, int... children) {
    return add(op.id(), attrs, children);
  }

  /**
   * The elements of a handle when the builder knows them (a term built from constants alone, or a
   * value computed on the spot), else null. Lowerings that can say more of an operator whose
   * operand is known (indices that are a fixed permutation) ask it; a builder that only records
   * terms may know none.
   */
  default Tensor known(int handle) {
    return null;
  }

  /** A constant of the shape holding v everywhere: a scalar (-0.0 is 0.0), broadcast. */
  default int filled(double v, int dtype, long[] shape) {
    int s = add(Op.SCALAR, new long[] {Double.doubleToLongBits(v == 0.0 ? 0.0 : v), dtype});
    return shape.length == 0 ? s : add(Op.EXPAND, shape.clone(), s);
  }
}
