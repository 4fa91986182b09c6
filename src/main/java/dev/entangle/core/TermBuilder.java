package dev.entangle.core;

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

  /** A constant of the shape holding v everywhere: a scalar (-0.0 is 0.0), broadcast. */
  default int filled(double v, int dtype, long[] shape) {
    int s = add(Op.SCALAR, new long[] {Double.doubleToLongBits(v == 0.0 ? 0.0 : v), dtype});
    return shape.length == 0 ? s : add(Op.EXPAND, shape.clone(), s);
  }
}
