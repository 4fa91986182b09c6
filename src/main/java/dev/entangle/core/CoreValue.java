package dev.entangle.core;

/**
 * One tensor value of a core program: a node's result, or one item of a node's tuple result.
 *
 * @param id dense id within its program
 * @param graph the G_d rank holding it, or -1 in G_s
 * @param name the node name (of the {@code getitem} node for a tuple item)
 * @param tag the node's {@code meta.tag}, or null
 * @param type the type the graph records for it
 * @param kind input, constant, undefined or computed
 * @param op the operation defining it ({@link CoreProgram#op}), or -1 for an input
 * @param item which of the operation's results it is
 * @param output whether the graph returns it
 */
public record CoreValue(
    int id,
    int graph,
    String name,
    String tag,
    TypeInfo type,
    ValueKind kind,
    int op,
    int item,
    boolean output) {

  /** How reports name it: {@code name} in G_s, {@code rK.name} in G_d. */
  public String label() {
    return graph < 0 ? name : "r" + graph + "." + name;
  }

  /** The same value, defined by item {@code item} of operation {@code op}, of kind {@code k}. */
  public CoreValue defined(ValueKind k, int op, int item) {
    return new CoreValue(id, graph, name, tag, type, k, op, item, output);
  }

  /** The same value of another kind. */
  public CoreValue withKind(ValueKind k) {
    return new CoreValue(id, graph, name, tag, type, k, op, item, output);
  }

  /** The same value, returned by its graph. */
  public CoreValue returned() {
    return new CoreValue(id, graph, name, tag, type, kind, op, item, true);
  }
}
