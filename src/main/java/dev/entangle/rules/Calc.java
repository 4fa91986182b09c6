package dev.entangle.rules;

/** An integer expression of a rule's conditions, lets and computed attributes. */
sealed interface Calc {
  /** A number. */
  record Lit(long value) implements Calc {}

  /**
   * A bound variable: an attribute, a let, an attribute list, an e-class or a list of e-classes.
   */
  record Ref(int slot, String name) implements Calc {}

  /** A function ({@link Fn}) applied to arguments, e.g. {@code (size ?x ?d)}, {@code (+ ?s 1)}. */
  record Apply(Fn fn, Calc[] args, int line, int col) implements Calc {}
}
