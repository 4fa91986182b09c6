package dev.entangle.importer.hlo;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * What the computations that instructions call ({@code to_apply}, {@code calls}) compute: a reducer
 * recognised as one binary operator of its two parameters, or, for any other body, a canonical text
 * of it (instructions by position, metadata left out), so that two calls are the same function
 * exactly when their bodies are the same.
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
   * A canonical text of a computation's body: each instruction by position, no names or metadata.
   */
  static String canonical(HloComputation c, Map<String, HloComputation> all) {
    Map<String, Integer> index = new HashMap<>();
    StringJoiner body = new StringJoiner("; ", "{", "}");
    for (HloInstruction i : c.instructions()) {
      StringBuilder sb = new StringBuilder();
      sb.append('%')
          .append(index.size())
          .append(" = ")
          .append(i.type())
          .append(' ')
          .append(i.opcode())
          .append('(');
      if (i.opcode().equals("constant") || i.opcode().equals("parameter")) {
        sb.append(i.operandText().strip());
      } else {
        StringJoiner ops = new StringJoiner(", ");
        for (String o : i.operands()) {
          ops.add("%" + index.get(o));
        }
        sb.append(ops);
      }
      sb.append(')');
      i.attributes()
          .forEach(
              (k, v) -> {
                if (!HloNodes.IGNORED_ATTRIBUTES.contains(k)) {
                  HloComputation called = all.get(v.startsWith("%") ? v.substring(1) : v);
                  sb.append(", ")
                      .append(k)
                      .append('=')
                      .append(called != null && called != c ? canonical(called, all) : v);
                }
              });
      index.put(i.name(), index.size());
      body.add(sb);
    }
    return body.toString();
  }
}
