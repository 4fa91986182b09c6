package dev.entangle.graph;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * One torch.fx node.
 *
 * @param name unique within its graph
 * @param op the node kind
 * @param target for call_function the operator overload without {@code torch.ops.} (e.g. {@code
 *     aten.mm.default}) or {@code getitem}; for placeholder/get_attr the attribute name
 * @param args positional arguments
 * @param kwargs keyword arguments, in file order
 * @param meta result type and annotations
 * @param index position of the node in its graph's node list
 */
public record Node(
    String name,
    NodeOp op,
    String target,
    List<Arg> args,
    Map<String, Arg> kwargs,
    Meta meta,
    int index) {
  public Node {
    args = List.copyOf(args);
    kwargs = Collections.unmodifiableMap(new LinkedHashMap<>(kwargs));
  }

  /** Positional argument {@code i}, or null when absent. */
  public Arg arg(int i) {
    return i >= 0 && i < args.size() ? args.get(i) : null;
  }

  /** Keyword argument {@code key}, or null when absent. */
  public Arg kwarg(String key) {
    return kwargs.get(key);
  }

  /**
   * Calls {@code f} with the name of every node the arguments refer to (lists included), in order.
   */
  public void forEachRef(Consumer<String> f) {
    for (Arg a : args) {
      refs(a, f);
    }
    for (Arg a : kwargs.values()) {
      refs(a, f);
    }
  }

  private static void refs(Arg a, Consumer<String> f) {
    if (a instanceof Arg.NodeRef r) {
      f.accept(r.name());
    } else if (a instanceof Arg.ListArg l) {
      for (Arg x : l.items()) {
        refs(x, f);
      }
    }
  }

  /** The single result type (see {@link Meta#type()}). */
  public TensorType type() {
    return meta.type();
  }
}
