package dev.entangle.importer;

import java.util.List;

/** One statement of a printed {@code forward} body that matters to the graph. */
sealed interface Statement {

  int line();

  /**
   * {@code target[: "annotation"] = value}.
   *
   * @param annotation the type annotation string, or null when unannotated
   * @param stackTrace the fx stack trace of the {@code # File:} comment in force, or null
   */
  record Assign(String target, String annotation, PyExpr value, int line, String stackTrace)
      implements Statement {}

  /** A bare annotation {@code primals_1: "f32[8]"}: the type of a pytree-flattened input. */
  record Annotate(String target, String annotation, int line) implements Statement {}

  /**
   * {@code a, b, = fx_pytree.tree_flatten_spec([primals, tangents], self._in_spec)}.
   *
   * @param targets the graph inputs, in order
   * @param containers the {@code forward} parameters they are flattened from
   */
  record FlattenInputs(List<String> targets, List<String> containers, int line)
      implements Statement {
    public FlattenInputs {
      targets = List.copyOf(targets);
      containers = List.copyOf(containers);
    }
  }

  /** {@code return value}. */
  record Return(PyExpr value, int line) implements Statement {}
}
