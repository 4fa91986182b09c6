package dev.entangle.refine;

import dev.entangle.core.Op;
import dev.entangle.egraph.CostModel;
import dev.entangle.egraph.ENode;
import java.util.function.IntPredicate;

/** Cost models for extraction: clean operators only, over the allowed G_d values. */
final class CleanCost {
  private CleanCost() {}

  /** Clean terms whose leaves satisfy {@code leafAllowed}; every node costs 1. */
  static CostModel clean(IntPredicate leafAllowed) {
    return clean(leafAllowed, true);
  }

  /**
   * Clean terms over G_d's outputs (and inputs): the output relation, which rests on no factor the
   * checker derived ({@code scale} of three attributes), only on those the relation states.
   */
  static CostModel overOutputs(IntPredicate leafAllowed) {
    return clean(leafAllowed, false);
  }

  private static CostModel clean(IntPredicate leafAllowed, boolean derivedFactors) {
    return n -> {
      Op op = Op.of(n.op());
      if (op == null || !op.isClean()) {
        return -1;
      }
      if (op == Op.SCALE && !derivedFactors && Op.derivedScale(n.attrs())) {
        return -1;
      }
      if (op == Op.TENSOR && !leafAllowed.test((int) n.attr(0))) {
        return -1;
      }
      return 1;
    };
  }

  /**
   * Any term over G_d values, with non-clean operators made expensive: used to explain a failure by
   * what G_d would have had to compute.
   */
  static CostModel explain() {
    return n -> {
      Op op = Op.of(n.op());
      if (op == Op.UNDEF) {
        return -1;
      }
      return op != null && op.isClean() ? 1 : 20;
    };
  }

  static boolean isClean(ENode n) {
    Op op = Op.of(n.op());
    return op != null && op.isClean();
  }
}
