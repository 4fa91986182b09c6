package dev.entangle.core;

import dev.entangle.core.numeric.EvalException;
import java.util.function.LongFunction;

/**
 * Shape and dtype inference for the core language: the type of an operator applied to operands of
 * known types, or a {@link ShapeException} saying why the operands do not fit. Each operator's rule
 * is its family's ({@link Op#semantics()}); an opaque operator's type is the one recorded for it.
 */
public final class Shapes {
  private final OpTable table;
  private final Semantics.Context context;

  /**
   * @param table names of opaque operators and their result types
   * @param tensorTypes the type of each G_d tensor id (for {@link Op#TENSOR} leaves)
   */
  public Shapes(OpTable table, LongFunction<TypeInfo> tensorTypes) {
    this.table = table;
    this.context =
        Semantics.Context.of(
            table,
            tensorTypes,
            id -> {
              throw new EvalException("tensor[" + id + "] has no value in shape inference");
            });
  }

  /** The type of {@code op(attrs; children)}. */
  public TypeInfo infer(int opId, long[] a, TypeInfo[] c) {
    if (OpTable.isOpaque(opId)) {
      return table.opaqueType(opId);
    }
    Op op = Op.of(opId);
    for (int i = 0; i < c.length; i++) {
      if (c[i].isTuple() && op != Op.ITEM) {
        throw new ShapeException(op.symbol() + " applied to a tuple");
      }
    }
    return op.semantics().type(op, a, c, context);
  }
}
