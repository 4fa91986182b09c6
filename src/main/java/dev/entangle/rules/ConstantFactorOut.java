package dev.entangle.rules;

import dev.entangle.core.Op;
import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.Applier.Unions;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;
import java.util.List;

/**
 * {@code f(..., x * k, ...) = f(..., x, ...) * k} for a constant k and an operator f linear in that
 * operand: a convolution and its gradients in either operand, a softmax or log-softmax gradient, a
 * rotary embedding, a pick or an embedding's gradient in its first, and a {@code where} in the
 * value chosen where the other is zero (a relu's gradient). A loss scaled by 1/batch then scales
 * each gradient alike on every rank, so the factor meets the one of the ranks' averages. The
 * factor's shape is the result's, which the pattern language cannot write for these operators. Only
 * moves a factor out, so it ends.
 */
final class ConstantFactorOut implements NativeRule<ConstantFactorOut.Scaled> {
  static final String NAME = "constant-factor-out";

  /** An operator and the operands it is linear in (a where: either value, the other being 0). */
  private record Linear(Op op, int... operands) {}

  /** In a fixed order, so that searches report matches in one order. */
  private static final List<Linear> LINEAR =
      List.of(
          new Linear(Op.CONV, 0, 1),
          new Linear(Op.CONV_INPUT_GRAD, 0, 1),
          new Linear(Op.CONV_WEIGHT_GRAD, 0, 1),
          new Linear(Op.SOFTMAX_BACKWARD, 0),
          new Linear(Op.LOG_SOFTMAX_BACKWARD, 0),
          new Linear(Op.ROPE, 0),
          new Linear(Op.PICK, 0),
          new Linear(Op.PICK_RANGE, 0),
          new Linear(Op.EMBEDDING_GRAD, 0),
          new Linear(Op.WHERE, 1, 2));

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String doc() {
    return "a constant factor of an operand an operator is linear in leaves the operator";
  }

  /**
   * One operand of a node scaled by a constant.
   *
   * @param cls the node's class
   * @param node the node
   * @param operand which operand
   * @param unscaled the operand without the factor
   * @param factor the constant's class
   */
  record Scaled(int cls, ENode node, int operand, int unscaled, int factor) {}

  @Override
  public void search(EGraph<TypeInfo> g, SearchDeadline deadline, Found<Scaled> found) {
    for (Linear e : LINEAR) {
      for (EGraph.Held held : g.nodesWithOp(e.op().id())) {
        deadline.poll();
        ENode n = held.node();
        if (g.data(held.cls()).constant() != null) {
          continue;
        }
        for (int i : e.operands()) {
          if (e.op() == Op.WHERE && !isZero(g, n.child(i == 1 ? 2 : 1))) {
            continue;
          }
          ENode product = scaled(g, n.child(i));
          if (product != null) {
            found.match(
                new Scaled(held.cls(), n, i, g.find(product.child(0)), g.find(product.child(1))));
          }
        }
      }
    }
  }

  @Override
  public void apply(EGraph<TypeInfo> g, Scaled m, Unions unions) {
    int[] kids = m.node().children().clone();
    kids[m.operand()] = m.unscaled();
    int unscaled = g.add(new ENode(m.node().op(), m.node().attrs(), kids));
    TypeInfo result = g.data(m.cls());
    TypeInfo k = g.data(m.factor());
    int scalar =
        g.add(
            new ENode(
                Op.SCALAR.id(),
                new long[] {Double.doubleToLongBits(k.constant()), k.dtype()},
                new int[0]));
    int factor =
        result.rank() == 0
            ? scalar
            : g.add(new ENode(Op.EXPAND.id(), result.shape(), new int[] {scalar}));
    unions.union(m.cls(), g.add(new ENode(Op.MUL.id(), new long[0], new int[] {unscaled, factor})));
  }

  /** A product x * k in the class, k constant and x not. */
  private static ENode scaled(EGraph<TypeInfo> g, int cls) {
    for (ENode n : g.nodes(cls)) {
      if (n.op() == Op.MUL.id()
          && g.data(n.child(1)).constant() != null
          && g.data(n.child(0)).constant() == null) {
        return n;
      }
    }
    return null;
  }

  private static boolean isZero(EGraph<TypeInfo> g, int cls) {
    Double c = g.data(cls).constant();
    return c != null && c == 0.0;
  }
}
