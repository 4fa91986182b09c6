package dev.entangle.importer.hlo;

import java.util.List;

/**
 * What the computations that instructions call ({@code to_apply}) compute: a reducer recognised as
 * one binary operator of its two parameters ({@link BodyTexts} gives any other body's canonical
 * text).
 */
final class Computations {
  private Computations() {}

  /**
   * The reducer a computation is: {@code add}, {@code max}, {@code min}, {@code mul}, {@code and},
   * {@code or} when its root applies that operator to its two scalar parameters (in either order);
   * otherwise null.
   */
  static String reducer(HloComputation c) {
    List<HloInstruction> params = c.parameters();
    HloInstruction root = c.root();
    if (params.size() != 2
        || params.contains(null)
        || root.operands().size() != 2
        || !(root.type() instanceof HloType.Array a)
        || a.rank() != 0) {
      return null;
    }
    List<String> ops = root.operands();
    String p0 = params.get(0).name();
    String p1 = params.get(1).name();
    if (!(ops.get(0).equals(p0) && ops.get(1).equals(p1))
        && !(ops.get(0).equals(p1) && ops.get(1).equals(p0))) {
      return null;
    }
    return switch (root.opcode()) {
      case "add" -> "add";
      case "maximum" -> "max";
      case "minimum" -> "min";
      case "multiply" -> "mul";
      case "and" -> "and";
      case "or" -> "or";
      default -> null;
    };
  }
}
