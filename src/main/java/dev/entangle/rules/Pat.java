package dev.entangle.rules;

/** The left side of a rule, compiled: variables are slots of the rule's binding array. */
sealed interface Pat {

  /** Any e-class; binds (or, when bound, must equal) slot {@code slot}. */
  record Var(int slot) implements Pat {}

  /** Zero or more children; binds an int[] of e-classes. Only inside a node's children. */
  record ListVar(int slot) implements Pat {}

  /**
   * A node: a fixed operator ({@code opSlot} < 0) or an operator variable drawn from {@code
   * opChoices} (binding op id and attributes in {@code opSlot}); {@code attrs} null matches any
   * attributes.
   */
  record Node(int op, int[] opChoices, int opSlot, AttrPat[] attrs, Pat[] children)
      implements Pat {}

  /** One attribute position of a node pattern. */
  sealed interface AttrPat {
    record Lit(long value) implements AttrPat {}

    record Var(int slot) implements AttrPat {}

    /** The remaining attributes, bound as a long[]. Only last. */
    record Rest(int slot) implements AttrPat {}

    record Any() implements AttrPat {}
  }
}
