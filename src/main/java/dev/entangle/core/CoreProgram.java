package dev.entangle.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * A graph side lowered into the core language, once, right after reading: G_s (one graph, {@code
 * graph} -1) or G_d (every rank). Every tensor value has a dense id, a rank, a name, a type and a
 * definition: an input, or an item of an operation whose {@link Steps} build its term over the
 * values it reads. {@code getitem}, tuples and {@code wait_tensor} are resolved; a collective is
 * already the sum, concat or slice of what its group's members sent. Immutable.
 */
public final class CoreProgram {
  private final String source;
  private final int worldSize;
  private final OpTable table;
  private final List<CoreValue> values;
  private final List<CoreOp> ops;
  private final List<List<Integer>> outputs;
  private final Map<String, Integer> byName;
  private final Map<String, Integer> byTag;
  private final int[][] users;

  /** Per operation, the values its terms are built from ({@link CoreOp#dependencies}). */
  private final int[][] dependencies;

  private final int callCount;
  private final List<List<String>> nodeLabels;

  public CoreProgram(
      String source,
      int worldSize,
      OpTable table,
      List<CoreValue> values,
      List<CoreOp> ops,
      List<List<Integer>> outputs,
      Map<String, Integer> byName,
      Map<String, Integer> byTag,
      int callCount,
      List<List<String>> nodeLabels) {
    this.source = source;
    this.worldSize = worldSize;
    this.table = table;
    this.values = List.copyOf(values);
    this.ops = List.copyOf(ops);
    List<List<Integer>> outs = new ArrayList<>();
    outputs.forEach(o -> outs.add(List.copyOf(o)));
    this.outputs = Collections.unmodifiableList(outs);
    this.byName = Map.copyOf(byName);
    this.byTag = Map.copyOf(byTag);
    this.callCount = callCount;
    this.nodeLabels = List.copyOf(nodeLabels);
    List<List<Integer>> us = new ArrayList<>();
    for (int i = 0; i < values.size(); i++) {
      us.add(new ArrayList<>());
    }
    this.dependencies = new int[ops.size()][];
    for (CoreOp op : ops) {
      if (op != null) {
        dependencies[op.id()] = op.dependencies();
      }
    }
    for (CoreValue v : values) {
      if (v.op() >= 0) {
        for (int d : dependencies[v.op()]) {
          List<Integer> u = us.get(d);
          if (u.isEmpty() || u.get(u.size() - 1) != v.id()) {
            u.add(v.id());
          }
        }
      }
    }
    users = new int[values.size()][];
    for (int i = 0; i < users.length; i++) {
      users[i] = us.get(i).stream().mapToInt(Integer::intValue).toArray();
    }
  }

  /** The file it was read from. */
  public String source() {
    return source;
  }

  /** Number of graphs: 1 for G_s, the world size for G_d. */
  public int worldSize() {
    return worldSize;
  }

  /** Whether this is G_d (values carry ranks). */
  public boolean distributed() {
    return values.isEmpty() ? worldSize > 1 : values.get(0).graph() >= 0;
  }

  /** The names of the opaque operators the lowering met. */
  public OpTable table() {
    return table;
  }

  public int size() {
    return values.size();
  }

  public CoreValue value(int id) {
    return values.get(id);
  }

  public List<CoreValue> values() {
    return values;
  }

  public CoreOp op(int id) {
    return ops.get(id);
  }

  public List<CoreOp> ops() {
    return ops;
  }

  /** The operation defining a value, or null for an input. */
  public CoreOp definition(int valueId) {
    int op = values.get(valueId).op();
    return op < 0 ? null : ops.get(op);
  }

  /** The values computed from a value, ascending. */
  public int[] users(int valueId) {
    return users[valueId];
  }

  /**
   * The values a value's definition is built from (nothing for an input): {@link
   * CoreOp#dependencies}.
   */
  public int[] deps(int valueId) {
    int op = values.get(valueId).op();
    return op < 0 ? new int[0] : dependencies[op];
  }

  /** The values graph {@code graph} returns, in order (rank for G_d, -1 or 0 for G_s). */
  public List<Integer> outputs(int graph) {
    return outputs.get(Math.max(graph, 0));
  }

  /** The number of {@code call_function} nodes of every graph. */
  public int callCount() {
    return callCount;
  }

  /** A value by node name, then by {@code meta.tag}; -1 when neither names a tensor value. */
  public int resolve(int graph, String nameOrTag) {
    Integer id = byName.get(key(graph, nameOrTag));
    if (id == null) {
      id = byTag.get(key(graph, nameOrTag));
    }
    return id == null ? -1 : id;
  }

  /** A value by node name only; -1 when absent. */
  public int id(int graph, String name) {
    Integer id = byName.get(key(graph, name));
    return id == null ? -1 : id;
  }

  /**
   * Builds a value's definition into {@code b} by replaying its operation; the values it reads come
   * from {@code refs}. Returns the value's handle.
   */
  public int define(int valueId, Steps.Refs refs, TermBuilder b) {
    CoreValue v = values.get(valueId);
    CoreOp op = ops.get(v.op());
    return op.steps().replay(refs, b, op.results())[op.results()[v.item()]];
  }

  /** Replays an operation; returns one handle per result item (-1 for a non-tensor item). */
  public int[] replay(CoreOp op, Steps.Refs refs, TermBuilder b) {
    return replay(op, refs, b, true);
  }

  /**
   * Replays an operation, with or without the facts it states about its collective group (see
   * {@link Steps#replay(Steps.Refs, TermBuilder, boolean, int[])}).
   */
  public int[] replay(CoreOp op, Steps.Refs refs, TermBuilder b, boolean facts) {
    int[] slots = op.steps().replay(refs, b, facts, op.results());
    int[] out = new int[op.results().length];
    for (int i = 0; i < out.length; i++) {
      out[i] = op.results()[i] < 0 ? -1 : slots[op.results()[i]];
    }
    return out;
  }

  /**
   * Names node {@code index} of graph {@code graph} (-1 for G_s), e.g. {@code r0.empty
   * (aten.empty.memory_format)}: how the id of an {@link dev.entangle.core.Op#UNDEF} value, {@code
   * graph << 32 | index}, is told to people.
   */
  public String nodeLabel(int graph, int index) {
    List<String> labels = nodeLabels.get(Math.max(graph, 0));
    return index >= 0 && index < labels.size() ? labels.get(index) : "node " + index;
  }

  /** The node behind an {@link Op#UNDEF} id. */
  public String undefinedOrigin(long undefId) {
    return nodeLabel((int) (undefId >> 32), (int) undefId);
  }

  public static String key(int graph, String name) {
    return graph + "/" + name;
  }

  @Override
  public String toString() {
    return "CoreProgram["
        + source
        + ", "
        + values.size()
        + " values, "
        + ops.size()
        + " operations]";
  }
}
