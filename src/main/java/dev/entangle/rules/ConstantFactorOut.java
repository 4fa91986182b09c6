package dev.entangle.rules;

import dev.entangle.core.Op;
import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.Applier.Unions;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code f(..., x * k, ...) = f(..., x, ...) * k} for a constant k (a product with a constant, or a
 * rational {@code scale}, which stays one, derived or stated alike) and an operator f linear in
 * that operand ({@link Op#linearOperands}: a matrix product or a convolution and its gradients in
 * either operand, a softmax or log-softmax gradient, a rotary embedding, a pick, gather or
 * embedding and its gradient in its first), a {@code where} in the value chosen where the other is
 * zero (a relu's gradient), and a sum or mean over dims (a scaled gradient's bias gradient). A loss
 * scaled by 1/batch then scales each gradient alike on every rank, so the factor meets the one of
 * the ranks' averages. The factor's shape is the result's, which the pattern language cannot write
 * for these operators. Only moves a factor out, so it ends.
 */
final class ConstantFactorOut implements NativeRule<ConstantFactorOut.Scaled> {
  static final String NAME = "constant-factor-out";

  /**
   * The operators and operands a factor leaves, in a fixed order (so that searches report matches
   * in one order): those {@link Op#linearOperands} names, either value of a where, when the other
   * is zero, and the operand of a sum or mean (a {@code scale} only).
   */
  private static final List<Map.Entry<Op, int[]>> LINEAR = linear();

  private static List<Map.Entry<Op, int[]>> linear() {
    List<Map.Entry<Op, int[]>> out = new ArrayList<>();
    for (Op op : Op.values()) {
      if (op.linearOperands().length > 0) {
        out.add(Map.entry(op, op.linearOperands()));
      }
    }
    out.add(Map.entry(Op.WHERE, new int[] {1, 2}));
    out.add(Map.entry(Op.RSUM, new int[] {0}));
    out.add(Map.entry(Op.RMEAN, new int[] {0}));
    return List.copyOf(out);
  }

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
   * @param factor the constant's class, or -1 for a {@code scale}
   * @param scale the {@code scale} node's attributes, or null for a product with a constant
   */
  record Scaled(int cls, ENode node, int operand, int unscaled, int factor, long[] scale) {}

  @Override
  public void search(EGraph<TypeInfo> g, SearchDeadline deadline, Found<Scaled> found) {
    for (Map.Entry<Op, int[]> e : LINEAR) {
      for (EGraph.Held held : g.nodesWithOp(e.getKey().id())) {
        deadline.poll();
        ENode n = held.node();
        if (g.data(held.cls()).constant() != null) {
          continue;
        }
        for (int i : e.getValue()) {
          if (e.getKey() == Op.WHERE && !isZero(g, n.child(i == 1 ? 2 : 1))) {
            continue;
          }
          ENode product = scaled(g, n.child(i));
          if (product != null
              && product.op() != Op.SCALE.id()
              && (e.getKey() == Op.RSUM || e.getKey() == Op.RMEAN)) {
            continue; // a sum of products with a constant is left to the linear forms
          }
          if (product != null && product.op() == Op.SCALE.id()) {
            found.match(
                new Scaled(held.cls(), n, i, g.find(product.child(0)), -1, product.attrs()));
          } else if (product != null) {
            found.match(
                new Scaled(
                    held.cls(), n, i, g.find(product.child(0)), g.find(product.child(1)), null));
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
    if (m.scale() != null) {
      unions.union(m.cls(), g.add(new ENode(Op.SCALE.id(), m.scale(), new int[] {unscaled})));
      return;
    }
    TypeInfo k = g.data(m.factor());
    int factor = ConstantNodes.filled(g, k.constant(), k.dtype(), g.data(m.cls()).shape());
    unions.union(m.cls(), g.add(new ENode(Op.MUL.id(), new long[0], new int[] {unscaled, factor})));
  }

  /** A product x * k in the class, k constant and x not, or a scale of x; or null. */
  private static ENode scaled(EGraph<TypeInfo> g, int cls) {
    for (ENode n : g.nodes(cls)) {
      if (n.op() == Op.MUL.id()
          && g.data(n.child(1)).constant() != null
          && g.data(n.child(0)).constant() == null) {
        return n;
      }
      if (n.op() == Op.SCALE.id() && g.data(n.child(0)).constant() == null) {
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
