package dev.entangle.egraph;

import java.util.ArrayList;

/**
 * An e-class: its nodes, its analysis fact and the nodes that use it (its parents, each with the
 * class holding it). Owned and mutated by {@link EGraph} only.
 */
final class EClass<D> {
  final int id;
  final ArrayList<ENode> nodes = new ArrayList<>(2);
  D data;
  final ArrayList<ENode> parentNodes = new ArrayList<>(2);
  final IntList parentClasses = new IntList(2);

  EClass(int id, ENode first, D data) {
    this.id = id;
    this.nodes.add(first);
    this.data = data;
  }

  void addParent(ENode node, int classId) {
    parentNodes.add(node);
    parentClasses.add(classId);
  }

  /** Nodes plus parents: the work a merge into another class would move. */
  int weight() {
    return nodes.size() + parentNodes.size();
  }
}
