package dev.entangle.relation;

import dev.entangle.graph.Graph;
import dev.entangle.graph.Node;
import dev.entangle.graph.NodeOp;
import java.util.ArrayList;
import java.util.List;

/** The names a relation may use for a graph's tensors: node names and {@code meta.tag}s. */
final class RelationNames {
  private RelationNames() {}

  static List<String> of(Graph g) {
    List<String> names = new ArrayList<>();
    for (Node n : g.nodes()) {
      if (n.op() == NodeOp.OUTPUT) {
        continue;
      }
      names.add(n.name());
      if (n.meta() != null && n.meta().tag() != null) {
        names.add(n.meta().tag());
      }
    }
    return names;
  }
}
