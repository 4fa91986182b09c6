package dev.entangle.core;

/**
 * One node of a source graph, lowered once: the recorded steps that build its terms ({@link
 * Steps}), which of them are its results, and the values it reads.
 *
 * @param id dense id within its program, in node order (ranks in order for G_d)
 * @param graph the G_d rank, or -1 in G_s
 * @param name the node name
 * @param target the operator as the graph names it (e.g. {@code aten.mm.default})
 * @param call whether the node is a {@code call_function} (else a {@code get_attr} constant)
 * @param stackTrace the user source that produced it, or null
 * @param kind the same classification as values (a tuple node has one too)
 * @param steps how to build its terms over the values it reads
 * @param results per result item, the step slot holding it, or -1 for a non-tensor item
 * @param reads the values it depends on, without repeats (for a collective: every member's input)
 * @param values the values it defines (itself, or its {@code getitem} items)
 */
public record CoreOp(
    int id,
    int graph,
    String name,
    String target,
    boolean call,
    String stackTrace,
    ValueKind kind,
    Steps steps,
    int[] results,
    int[] reads,
    int[] values) {
  /** The step slot holding result item {@code item}, or -1 (none, or a non-tensor item). */
  public int resultSlot(int item) {
    return item >= 0 && item < results.length ? results[item] : -1;
  }

  /**
   * The values its terms are built from: its reads that its steps read and use (an argument a
   * lowering never reads, such as the bias of a layer norm's backward, on which its gradients do
   * not depend, or one it reads for its shape alone, is an input of the node but no dependency of
   * its value).
   */
  public int[] dependencies() {
    java.util.BitSet read = new java.util.BitSet();
    for (int i = 0; i < steps.size(); i++) {
      if (steps.read(i, results)) {
        read.set(steps.arg(i));
      }
    }
    return java.util.Arrays.stream(reads).filter(read::get).toArray();
  }

  /** The same operation with another kind. */
  public CoreOp withKind(ValueKind k) {
    return new CoreOp(id, graph, name, target, call, stackTrace, k, steps, results, reads, values);
  }

  /** The same operation defining other values. */
  public CoreOp withValues(int[] vs) {
    return new CoreOp(id, graph, name, target, call, stackTrace, kind, steps, results, reads, vs);
  }
}
