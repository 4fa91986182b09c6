package dev.entangle.rules;

import dev.entangle.core.Op;
import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;

/** Constant terms the native lemmas add: a scalar, broadcast to a shape. */
final class ConstantNodes {
  private ConstantNodes() {}

  /**
   * The class of {@code value} of {@code dtype} filling {@code shape}: the scalar, broadcast unless
   * the shape is 0-d (the form lowering and the rules write constants in).
   */
  static int filled(EGraph<TypeInfo> g, double value, int dtype, long[] shape) {
    int scalar =
        g.add(
            new ENode(
                Op.SCALAR.id(), new long[] {Double.doubleToLongBits(value), dtype}, new int[0]));
    return shape.length == 0
        ? scalar
        : g.add(new ENode(Op.EXPAND.id(), shape.clone(), new int[] {scalar}));
  }
}
