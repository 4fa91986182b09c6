package dev.entangle.graph;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A torch.fx-style computation graph: nodes in topological order, the last one usually the {@code
 * output} node. Immutable once built; readers validate it (unique names, references to earlier
 * nodes only, shapes present).
 */
public final class Graph {
  private final String name;
  private final String source;
  private final List<Node> nodes;
  private final Map<String, Node> byName = new HashMap<>();
  private final Map<String, Node> byTag = new HashMap<>();

  /**
   * @param name the graph's name (may be null)
   * @param source where it was read from, for messages (a path, or a description)
   * @param nodes the nodes in topological order; their {@code index} must be their position
   */
  public Graph(String name, String source, List<Node> nodes) {
    this.name = name;
    this.source = source;
    this.nodes = Collections.unmodifiableList(new ArrayList<>(nodes));
    for (Node n : this.nodes) {
      byName.put(n.name(), n);
      if (n.meta().tag() != null) {
        byTag.putIfAbsent(n.meta().tag(), n);
      }
    }
  }

  public String name() {
    return name;
  }

  public String source() {
    return source;
  }

  public List<Node> nodes() {
    return nodes;
  }

  /** The node with this exact name, or null. */
  public Node node(String nodeName) {
    return byName.get(nodeName);
  }

  /** Resolves a relation name: a node name first, then a {@code meta.tag}; null when neither. */
  public Node resolve(String nameOrTag) {
    Node n = byName.get(nameOrTag);
    return n != null ? n : byTag.get(nameOrTag);
  }

  /** The output node, or null when the graph has none. */
  public Node outputNode() {
    for (int i = nodes.size() - 1; i >= 0; i--) {
      if (nodes.get(i).op() == NodeOp.OUTPUT) {
        return nodes.get(i);
      }
    }
    return null;
  }

  /** The graph's outputs: the items of the output node's {@code args[0]}. */
  public List<Arg> outputs() {
    Node out = outputNode();
    if (out == null || out.args().isEmpty()) {
      return List.of();
    }
    Arg a = out.args().get(0);
    return a instanceof Arg.ListArg l ? l.items() : List.of(a);
  }

  /** The graph's input placeholders, in order. */
  public List<Node> placeholders() {
    return nodes.stream().filter(n -> n.op() == NodeOp.PLACEHOLDER).toList();
  }
}
