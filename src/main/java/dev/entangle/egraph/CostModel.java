package dev.entangle.egraph;

/**
 * The cost of one node for {@link Extractor}; a term costs the sum of its nodes' costs. A negative
 * cost or {@link Long#MAX_VALUE} means the node is not allowed in extracted terms.
 */
@FunctionalInterface
public interface CostModel {
  /** The cost of {@code n} alone (its children are costed separately). */
  long nodeCost(ENode n);

  /** Every node costs 1: the smallest term wins. */
  static CostModel astSize() {
    return n -> 1;
  }

  /** Whether a cost returned by {@link #nodeCost} allows the node. */
  static boolean allowed(long cost) {
    return cost >= 0 && cost != Long.MAX_VALUE;
  }
}
