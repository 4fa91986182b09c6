package dev.entangle.cli;

import dev.entangle.core.CoreOp;
import dev.entangle.core.CoreProgram;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Where G_d diverges, as the failure page draws it beside G_s's neighbourhood: the G_d operations
 * at the report's first distributed-code lines (the diverging ones), the operations they read from
 * and those reading their results, each with its source line.
 *
 * @param inputs the operations the diverging ones read (their values' definitions), in node order
 * @param diverging one operation per located line, nearest line first
 * @param users the operations reading the diverging ones' results, in node order
 * @param edges which drawn operation feeds which, by name
 * @param hidden how many neighbours were left out of the drawing
 */
record GdNeighbourhood(
    List<Node> inputs,
    List<Node> diverging,
    List<Node> users,
    List<PageDrawing.Edge> edges,
    int hidden) {

  /** The most diverging operations drawn (one per located line). */
  static final int MOST_DIVERGING = 4;

  /** The most inputs or users drawn. */
  static final int MOST_AROUND = 6;

  /**
   * One G_d operation.
   *
   * @param name its first value's label ({@code r0.mm})
   * @param target its operator
   * @param type its first value's type
   * @param where the source line it is located at ({@code tp.py:42}), or null
   * @param stackTrace its recorded stack trace, or null
   */
  record Node(String name, String target, String type, String where, String stackTrace) {}

  /** The neighbourhood of the report's G_d locations, or null when it names none. */
  static GdNeighbourhood of(CoreProgram gs, CoreProgram gd, Report r) {
    if (r.failure() == null || r.failure().gdLocations().isEmpty()) {
      return null;
    }
    Map<String, Integer> byLabel = new HashMap<>();
    for (int v = 0; v < gd.size(); v++) {
      byLabel.putIfAbsent(gd.value(v).label(), v);
    }
    ModelFrames frames = ModelFrames.of(gs, gd);
    Map<Integer, CoreOp> diverging = new LinkedHashMap<>();
    for (GdLocations.Location l : r.failure().gdLocations()) {
      if (diverging.size() == MOST_DIVERGING) {
        break;
      }
      Integer v = l.tensors().isEmpty() ? null : byLabel.get(l.tensors().get(0));
      CoreOp op = v == null ? null : gd.definition(v);
      if (op != null) {
        diverging.putIfAbsent(op.id(), op);
      }
    }
    Set<Integer> inputOps = new LinkedHashSet<>();
    Set<Integer> userOps = new LinkedHashSet<>();
    List<PageDrawing.Edge> edges = new ArrayList<>();
    for (CoreOp op : diverging.values()) {
      for (int v : op.reads()) {
        CoreOp def = gd.definition(v);
        int from = def == null ? -1 - v : def.id();
        if (!diverging.containsKey(from)) {
          inputOps.add(from);
        }
      }
      for (int v : op.values()) {
        for (int u : gd.users(v)) {
          int user = gd.value(u).op();
          if (user >= 0 && !diverging.containsKey(user)) {
            userOps.add(user);
          }
        }
      }
    }
    List<Integer> ins = inputOps.stream().sorted().toList();
    List<Integer> outs = userOps.stream().sorted().toList();
    int hidden = Math.max(0, ins.size() - MOST_AROUND) + Math.max(0, outs.size() - MOST_AROUND);
    ins = ins.subList(0, Math.min(MOST_AROUND, ins.size()));
    outs = outs.subList(0, Math.min(MOST_AROUND, outs.size()));
    List<Node> inputs = new ArrayList<>();
    Map<Integer, String> names = new HashMap<>();
    for (int i : ins) {
      Node n = i >= 0 ? node(gd, gd.op(i), frames) : value(gd, -1 - i);
      inputs.add(n);
      names.put(i, n.name());
    }
    List<Node> middle = new ArrayList<>();
    for (CoreOp op : diverging.values()) {
      Node n = node(gd, op, frames);
      middle.add(n);
      names.put(op.id(), n.name());
    }
    List<Node> users = new ArrayList<>();
    for (int u : outs) {
      Node n = node(gd, gd.op(u), frames);
      users.add(n);
      names.put(u, n.name());
    }
    for (CoreOp op : diverging.values()) {
      for (int v : op.reads()) {
        CoreOp def = gd.definition(v);
        String from = names.get(def == null ? -1 - v : def.id());
        if (from != null) {
          edges.add(new PageDrawing.Edge(from, names.get(op.id())));
        }
      }
      for (int v : op.values()) {
        for (int u : gd.users(v)) {
          String to = names.get(gd.value(u).op());
          if (to != null && !to.equals(names.get(op.id()))) {
            edges.add(new PageDrawing.Edge(names.get(op.id()), to));
          }
        }
      }
    }
    return new GdNeighbourhood(inputs, middle, users, edges.stream().distinct().toList(), hidden);
  }

  private static Node node(CoreProgram gd, CoreOp op, ModelFrames frames) {
    int first = op.values()[0];
    SourceFrames.Frame at = frames.pick(op.stackTrace());
    return new Node(
        gd.value(first).label(),
        op.target(),
        String.valueOf(gd.value(first).type()),
        at == null ? null : at.where(),
        op.stackTrace());
  }

  private static Node value(CoreProgram gd, int v) {
    return new Node(
        gd.value(v).label(),
        gd.value(v).kind().name().toLowerCase(Locale.ROOT),
        String.valueOf(gd.value(v).type()),
        null,
        null);
  }
}
