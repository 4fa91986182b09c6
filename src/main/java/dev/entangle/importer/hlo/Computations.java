package dev.entangle.importer.hlo;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

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

  /**
   * The reducer of (value, index) pairs a computation is: {@code argmax} when it keeps the larger
   * value (a NaN the largest) and, of equal values, the smaller index, as {@code jnp.argmax} lowers
   * (parameters: value, index, value, index); {@code argmin} the same with the smaller value; else
   * null.
   */
  static String pairReducer(HloComputation c) {
    List<HloInstruction> params = c.parameters();
    HloInstruction root = c.root();
    if (params.size() != 4 || params.contains(null) || !"tuple".equals(root.opcode())) {
      return null;
    }
    Map<String, HloInstruction> byName = new HashMap<>();
    for (HloInstruction i : c.instructions()) {
      byName.put(i.name(), i);
    }
    String v0 = params.get(0).name();
    String i0 = params.get(1).name();
    String v1 = params.get(2).name();
    String i1 = params.get(3).name();
    if (root.operands().size() != 2) {
      return null;
    }
    HloInstruction value = byName.get(root.operands().get(0));
    HloInstruction index = byName.get(root.operands().get(1));
    for (String dir : new String[] {"GT", "LT"}) {
      // value: select(v0 DIR v1 or v0 != v0, v0, v1)
      if (!select(value, byName, v0, v1)) {
        continue;
      }
      HloInstruction keepFirst = byName.get(value.operands().get(0));
      if (!orOf(keepFirst, byName, i -> compare(i, dir, v0, v1), i -> compare(i, "NE", v0, v0))) {
        continue;
      }
      // index: select(keepFirst or (v0 == v1 and i0 < i1), i0, i1)
      if (!select(index, byName, i0, i1)) {
        return null;
      }
      HloInstruction firstIndex = byName.get(index.operands().get(0));
      boolean ok =
          orOf(
              firstIndex,
              byName,
              i -> i == keepFirst,
              i ->
                  "and".equals(i.opcode())
                      && i.operands().size() == 2
                      && compare(byName.get(i.operands().get(0)), "EQ", v0, v1)
                      && compare(byName.get(i.operands().get(1)), "LT", i0, i1));
      return ok ? (dir.equals("GT") ? "argmax" : "argmin") : null;
    }
    return null;
  }

  private static boolean select(
      HloInstruction s, Map<String, HloInstruction> byName, String a, String b) {
    return s != null
        && "select".equals(s.opcode())
        && s.operands().size() == 3
        && s.operands().get(1).equals(a)
        && s.operands().get(2).equals(b);
  }

  /** Whether i is or(x, y) with one operand satisfying p and the other q. */
  private static boolean orOf(
      HloInstruction i,
      Map<String, HloInstruction> byName,
      java.util.function.Predicate<HloInstruction> p,
      java.util.function.Predicate<HloInstruction> q) {
    if (i == null || !"or".equals(i.opcode()) || i.operands().size() != 2) {
      return false;
    }
    HloInstruction x = byName.get(i.operands().get(0));
    HloInstruction y = byName.get(i.operands().get(1));
    return x != null && y != null && (p.test(x) && q.test(y) || p.test(y) && q.test(x));
  }

  /**
   * Whether i compares a with b in direction dir, by the default order (a {@code TOTALORDER}
   * comparison orders NaNs and signed zeros otherwise).
   */
  private static boolean compare(HloInstruction i, String dir, String a, String b) {
    String type = i == null ? null : i.attribute("type");
    return i != null
        && "compare".equals(i.opcode())
        && i.operands().size() == 2
        && i.operands().get(0).equals(a)
        && i.operands().get(1).equals(b)
        && dir.equals(HloAttributes.unquote(String.valueOf(i.attribute("direction"))))
        && (type == null || HloAttributes.unquote(type).equals("FLOAT"));
  }
}
