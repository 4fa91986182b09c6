package dev.entangle.cli;

import dev.entangle.core.CoreOp;
import dev.entangle.core.CoreProgram;
import dev.entangle.core.CoreValue;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The failing operator of G_s with the values it reads and the operators that use its results: what
 * the failure page draws.
 *
 * @param operator the failing operator
 * @param inputs the values it reads, in order
 * @param users the operators that read its results, in node order
 * @param returned whether G_s returns one of its results
 */
record Neighbourhood(Item operator, List<Item> inputs, List<Item> users, boolean returned) {

  /**
   * One node of the drawing.
   *
   * @param name the G_s node name
   * @param target its operator, or {@code input}/{@code constant} for a value without one
   * @param type its type ({@code float32[4, 16]})
   * @param stackTrace its recorded source, or null
   */
  record Item(String name, String target, String type, String stackTrace) {}

  /** The neighbourhood of a report's failing operator, or null when there is no failure. */
  static Neighbourhood of(CoreProgram gs, Report r) {
    if (r.failure() == null) {
      return null;
    }
    CoreOp op = find(gs, r.failure().operator());
    if (op == null) {
      return null;
    }
    List<Item> inputs = new ArrayList<>();
    for (int v : op.reads()) {
      inputs.add(item(gs, gs.value(v)));
    }
    Set<Integer> userOps = new LinkedHashSet<>();
    boolean returned = false;
    for (int v : op.values()) {
      returned |= gs.value(v).output();
      for (int u : gs.users(v)) {
        int user = gs.value(u).op();
        if (user >= 0 && user != op.id()) {
          userOps.add(user);
        }
      }
    }
    List<Item> users = new ArrayList<>();
    userOps.stream().sorted().forEach(u -> users.add(item(gs, gs.op(u))));
    return new Neighbourhood(item(gs, op), inputs, users, returned);
  }

  /** The operator of that name, or the one defining the value of that name. */
  private static CoreOp find(CoreProgram gs, String name) {
    for (CoreOp op : gs.ops()) {
      if (op.name().equals(name)) {
        return op;
      }
    }
    int v = gs.id(-1, name);
    return v < 0 ? null : gs.definition(v);
  }

  private static Item item(CoreProgram gs, CoreOp op) {
    String type =
        op.values().length == 1 ? String.valueOf(gs.value(op.values()[0]).type()) : "tuple";
    return new Item(op.name(), op.target(), type, op.stackTrace());
  }

  private static Item item(CoreProgram gs, CoreValue v) {
    CoreOp def = gs.definition(v.id());
    String target = def == null ? v.kind().name().toLowerCase(Locale.ROOT) : def.target();
    return new Item(
        v.name(), target, String.valueOf(v.type()), def == null ? null : def.stackTrace());
  }
}
