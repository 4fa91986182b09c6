package dev.entangle.cli;

import dev.entangle.core.CoreProgram;
import dev.entangle.core.CoreTerm;
import dev.entangle.core.Op;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A lemma to complete, for a step only numbers took: its left side is the term the proof reached
 * for the G_s value, its right side the clean expression G_d computes, G_d tensors turned into
 * variables. The user checks that the law holds for every shape, generalizes it and adds its
 * conditions, then passes its folder with {@code --lemmas}.
 */
final class LemmaSkeleton {
  private final Map<Integer, String> vars = new LinkedHashMap<>();
  private final CoreProgram gd;

  private LemmaSkeleton(CoreProgram gd) {
    this.gd = gd;
  }

  static String of(String gsName, CoreTerm lhs, CoreTerm rhs, CoreProgram gd) {
    LemmaSkeleton s = new LemmaSkeleton(gd);
    String left = lhs == null ? null : s.term(lhs);
    int bound = s.vars.size();
    String right = s.term(rhs);
    StringBuilder sb = new StringBuilder();
    sb.append("; ")
        .append(gsName)
        .append(": held on numbers; state the law for every shape it holds for, with")
        .append(" :when conditions\n");
    if (s.vars.size() > bound) {
      sb.append("; the right side's ")
          .append(String.join(", ", s.vars.values().stream().skip(bound).toList()))
          .append(" must be written in terms of the left side's variables\n");
    }
    if (left == null) {
      sb.append(
              "; the proof reached no term for it: write the left side as the G_s operator applied to its")
          .append(" inputs' G_d terms\n");
      left = "?lhs";
    }
    String name = "numeric-" + gsName.replaceAll("[^A-Za-z0-9]+", "-");
    return sb.append("(rule ")
        .append(name)
        .append("\n  ")
        .append(left)
        .append("\n  ")
        .append(right)
        .append(")")
        .toString();
  }

  private String term(CoreTerm t) {
    if (t.isTensor()) {
      return vars.computeIfAbsent(t.tensorId(), id -> "?" + variableName(id));
    }
    StringBuilder sb = new StringBuilder("(").append(gd.table().name(t.op()));
    if (t.attrs().length > 0 && Op.of(t.op()) != null) {
      sb.append('[');
      for (int i = 0; i < t.attrs().length; i++) {
        sb.append(i == 0 ? "" : " ").append(t.attrs()[i]);
      }
      sb.append(']');
    }
    for (CoreTerm c : t.children()) {
      sb.append(' ').append(term(c));
    }
    return sb.append(')').toString();
  }

  /** {@code r0.mm} becomes {@code r0-mm}; a name already taken gets a number. */
  private String variableName(int id) {
    String base = gd.value(id).label().replaceAll("[^A-Za-z0-9]+", "-");
    String name = base;
    for (int k = 2; vars.containsValue("?" + name); k++) {
      name = base + "-" + k;
    }
    return name;
  }
}
