package dev.entangle.egraph;

import java.util.ArrayList;
import java.util.Arrays;

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

  /** A class with the given nodes, fact and parents (an {@link EGraphImage}'s). */
  EClass(int id, ENode[] nodes, D data, ENode[] parentNodes, int[] parentClasses) {
    this.id = id;
    this.nodes.addAll(Arrays.asList(nodes));
    this.data = data;
    this.parentNodes.addAll(Arrays.asList(parentNodes));
    this.parentClasses.addAll(IntList.of(parentClasses));
  }

  /** The nodes sorted by operator (stably), and their operators; null when stale. */
  private ENode[] byOp;

  private int[] ops;

  /** Drops the operator index after the node list changed. */
  void nodesChanged() {
    byOp = null;
    ops = null;
  }

  /** Up to this many nodes a linear scan finds an operator's range faster than a bisection. */
  private static final int SCAN = 8;

  /** The nodes with operator {@code op}, in insertion order. */
  NodeRange withOp(int op) {
    if (byOp == null) {
      byOp = nodes.toArray(new ENode[0]);
      Arrays.sort(byOp, (a, b) -> Integer.compare(a.op, b.op));
      ops = new int[byOp.length];
      for (int i = 0; i < ops.length; i++) {
        ops[i] = byOp[i].op;
      }
    }
    int from = lowerBound(op);
    int to = from;
    while (to < ops.length && ops[to] == op) {
      to++;
    }
    return new NodeRange(byOp, from, to);
  }

  /** The first position whose operator is not below {@code op}: a scan for the usual few nodes. */
  private int lowerBound(int op) {
    if (ops.length <= SCAN) {
      int i = 0;
      while (i < ops.length && ops[i] < op) {
        i++;
      }
      return i;
    }
    int lo = 0;
    int hi = ops.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (ops[mid] < op) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
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
