package dev.entangle.rules;

/** The right side of a rule, compiled. */
sealed interface Template {
  /** A class bound by the left side. */
  record Var(int slot) implements Template {}

  /** The classes of a list variable, spliced into the parent's children. */
  record ListVar(int slot) implements Template {}

  /**
   * A node: a fixed operator or the operator of an operator variable ({@code opSlot} >= 0, which
   * also supplies the attributes when {@code attrs} is null).
   */
  record Node(int op, int opSlot, AttrTemplate[] attrs, Template[] children) implements Template {}

  /** {@code (...)...}: one copy of {@code body} per index of the list variables it mentions. */
  record Map(Template body, int[] listSlots) implements Template {}

  /** One attribute position: a value, or a list spliced in. */
  sealed interface AttrTemplate {
    record One(Calc value) implements AttrTemplate {}

    record Splice(Calc list) implements AttrTemplate {}
  }
}
