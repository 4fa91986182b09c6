package dev.entangle.core;

/** What a core value is, for the checker: one rule for both graphs. */
public enum ValueKind {
  /** A graph input: a placeholder, or an attribute whose value the file does not record. */
  INPUT,
  /**
   * Computed from constants alone (a recorded 0-d attribute, {@code arange}, {@code zeros}, ...).
   */
  CONSTANT,
  /**
   * Without defined contents: uninitialized memory, a random sample, a dropout mask, or a view of
   * one; never equal to anything else.
   */
  UNDEFINED,
  /** Computed from at least one input. */
  COMPUTED;

  /**
   * Whether the checker carries the value as its term rather than relating it (constants, undefined
   * values).
   */
  public boolean inlined() {
    return this == CONSTANT || this == UNDEFINED;
  }
}
