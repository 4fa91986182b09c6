package dev.entangle.eval;

import dev.entangle.core.TypeInfo;
import dev.entangle.core.numeric.Tensor;

/**
 * What evaluation knows of one value: its tensor, or why it has none. Every value has a type (shape
 * and dtype, or the items of a tuple) when the graph tells it, else null.
 */
public sealed interface Value {
  TypeInfo type();

  /** A computed tensor. */
  record Known(Tensor tensor) implements Value {
    @Override
    public TypeInfo type() {
      return Kernels.typeOf(tensor);
    }
  }

  /**
   * A value with no defined contents: uninitialized memory or a random sample, or computed from
   * one. Evaluation never guesses one.
   *
   * @param origin the value it comes from, e.g. {@code r0.empty (aten.empty.memory_format)}
   */
  record Undefined(TypeInfo type, String origin) implements Value {}

  /**
   * A value that was not computed.
   *
   * @param reason why, in one sentence: the operator it needs, the index out of range, the budget
   */
  record Unavailable(TypeInfo type, String reason) implements Value {}

  /** The tensor, or null when there is none. */
  default Tensor tensorOrNull() {
    return this instanceof Known k ? k.tensor() : null;
  }
}
