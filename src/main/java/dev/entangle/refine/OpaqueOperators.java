package dev.entangle.refine;

import dev.entangle.core.CoreOp;
import dev.entangle.core.CoreProgram;
import dev.entangle.core.Op;
import dev.entangle.core.OpTable;
import dev.entangle.core.Steps;
import dev.entangle.core.numeric.AtenPointwise;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The operators a lowered program keeps opaque: calls the core language neither lowers nor
 * decomposes, which have no kernel either (an element-wise call the evaluator knows, {@code ew1} or
 * {@code ew2} over a known ATen function, is not opaque in this sense). Such an operator maps only
 * by congruence (the same call on related operands in G_d); where a check stops at one, neither a
 * proof nor the numbers can tell a bug from the missing operator.
 */
public final class OpaqueOperators {
  private OpaqueOperators() {}

  /** The target of the first operator without numbers that {@code op} builds, or null. */
  public static String targetOf(CoreOp op, OpTable table) {
    Steps s = op.steps();
    for (int i = 0; i < s.size(); i++) {
      if (s.kind(i) != Steps.ADD) {
        continue;
      }
      int id = s.arg(i);
      if (OpTable.isOpaque(id)) {
        return table.opaqueTarget(id);
      }
      if (id == Op.EW1.id() || id == Op.EW2.id()) {
        int fn = (int) s.attrs(i)[0];
        if (!AtenPointwise.knows(table.opaqueTarget(fn))) {
          return table.opaqueTarget(fn);
        }
      }
    }
    return null;
  }

  /**
   * Every opaque operator a program uses, by target, with the nodes that use it (in node order).
   */
  public static Map<String, List<String>> in(CoreProgram p) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    for (CoreOp op : p.ops()) {
      String t = targetOf(op, p.table());
      if (t != null) {
        out.computeIfAbsent(t, k -> new ArrayList<>()).add(op.name());
      }
    }
    return out;
  }

  /**
   * The nearest operation of a program, {@code op} itself or one it depends on, that uses an opaque
   * operator; null when none does.
   */
  public static CoreOp nearest(CoreProgram gs, CoreOp op) {
    Deque<CoreOp> todo = new ArrayDeque<>(List.of(op));
    Set<Integer> seen = new HashSet<>(List.of(op.id()));
    while (!todo.isEmpty()) {
      CoreOp o = todo.removeFirst();
      if (targetOf(o, gs.table()) != null) {
        return o;
      }
      for (int v : o.reads()) {
        CoreOp d = gs.definition(v);
        if (d != null && seen.add(d.id())) {
          todo.addLast(d);
        }
      }
    }
    return null;
  }
}
