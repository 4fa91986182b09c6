package dev.entangle.egraph;

import java.util.Arrays;
import java.util.List;

/**
 * Some of a class's nodes: {@code nodes[from]} up to, not including, {@code nodes[to]}. A view of
 * the e-graph's own array; not to be modified.
 */
public record NodeRange(ENode[] nodes, int from, int to) {
  /** The nodes, as a read-only list over the same array. */
  public List<ENode> list() {
    return Arrays.asList(nodes).subList(from, to);
  }

  /** The first node, or null when there is none. */
  public ENode first() {
    return to > from ? nodes[from] : null;
  }
}
