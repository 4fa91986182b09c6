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
}
