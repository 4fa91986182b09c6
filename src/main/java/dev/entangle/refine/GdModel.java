package dev.entangle.refine;

import dev.entangle.lower.CoreProgram;
import dev.entangle.lower.CoreValue;
import dev.entangle.lower.ValueKind;

/**
 * G_d as the checker explores it: the lowered program, with per-value flags at hand: whether a
 * value is carried as its term (computed from constants alone, or without defined contents),
 * whether it has no defined contents, and whether G_d returns it.
 */
final class GdModel {
  final CoreProgram program;

  /** Inlined as its term: a constant, or an undefined value (which never waits on anything). */
  final boolean[] constant;

  final boolean[] undefined;
  final boolean[] output;

  GdModel(CoreProgram program) {
    this.program = program;
    int n = program.size();
    constant = new boolean[n];
    undefined = new boolean[n];
    output = new boolean[n];
    for (CoreValue v : program.values()) {
      constant[v.id()] = v.kind().inlined();
      undefined[v.id()] = v.kind() == ValueKind.UNDEFINED;
      output[v.id()] = v.output();
    }
  }

  /**
   * Whether an output relation may use the value: G_d's outputs, and its inputs, which the user
   * supplies and so has at hand.
   */
  boolean available(int id) {
    return output[id] || input(id);
  }

  /** Whether the value is a G_d input (given by the user, not computed). */
  boolean input(int id) {
    return program.value(id).kind() == ValueKind.INPUT;
  }

  CoreValue value(int id) {
    return program.value(id);
  }

  int[] deps(int id) {
    return program.deps(id);
  }

  int[] users(int id) {
    return program.users(id);
  }

  int size() {
    return program.size();
  }
}
