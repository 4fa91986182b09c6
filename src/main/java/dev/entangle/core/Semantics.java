package dev.entangle.core;

import dev.entangle.core.numeric.Tensor;
import java.util.function.LongFunction;

/**
 * What the operators of one family mean: the type of an application (its shape rule, refusing
 * operands that do not fit with a {@link ShapeException}) and its value on numbers (the reference
 * kernel the interpreter runs). Each {@link Op} names its family's semantics, so an operator's
 * name, shape rule and kernel are found in one place: the {@code Op} constant and the one class it
 * names, under {@code core.semantics}.
 */
public interface Semantics {
  /** What an operator's meaning may depend on besides its attributes and operands. */
  interface Context {
    /** The run's opaque operators (the ATen functions that {@code ew1}, {@code ew2} name). */
    OpTable table();

    /** The type of the G_d tensor {@code tensor[id]}. */
    TypeInfo tensorType(long id);

    /** The value of the G_d tensor {@code tensor[id]}, or an {@code EvalException}. */
    Tensor tensorValue(long id);

    /** A context of a run's operator table and the types and values of its G_d tensors. */
    static Context of(OpTable table, LongFunction<TypeInfo> types, LongFunction<Tensor> values) {
      return new RunContext(table, types, values);
    }
  }

  /** {@link Context#of}. */
  record RunContext(OpTable table, LongFunction<TypeInfo> types, LongFunction<Tensor> values)
      implements Context {
    @Override
    public TypeInfo tensorType(long id) {
      return types.apply(id);
    }

    @Override
    public Tensor tensorValue(long id) {
      return values.apply(id);
    }
  }

  /** The type of {@code op(attrs; operands)}; a {@link ShapeException} when operands do not fit. */
  TypeInfo type(Op op, long[] attrs, TypeInfo[] operands, Context context);

  /**
   * The elements of {@code op(attrs; operands)} in row-major order, of type {@code out} (which
   * {@link #type} gave); an {@code EvalException} when the value is not defined.
   */
  double[] compute(Op op, long[] attrs, Tensor[] operands, TypeInfo out, Context context);

  /** The shape rule of {@code op} in words, for the operator reference (docs/operators.md). */
  String shapeRule(Op op);

  /** Whether the interpreter can compute {@code op} on numbers. */
  default boolean hasKernel(Op op) {
    return true;
  }

  /**
   * Work units of one application beyond the elements read and written ({@code elements}): the
   * multiply-adds of products and attention.
   */
  default long cost(Op op, Tensor[] operands, long elements) {
    return elements;
  }
}
