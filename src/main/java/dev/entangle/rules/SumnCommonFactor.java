package dev.entangle.rules;

import dev.entangle.core.Op;
import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.Applier.Unions;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;

/**
 * {@code sum(x_1 * k, ..., x_n * k) = sum(x_1, ..., x_n) * k} for one constant k: a common constant
 * factor leaves a sum across ranks (gradients each scaled by the rank's 1/batch, then averaged).
 * The pattern language cannot state it (every operand of a sum of any length a product). Only
 * factors out, never distributes, and not from a sum of one term repeated (a replicated value),
 * whose factored sum would be a term of the next such sum without end.
 */
final class SumnCommonFactor implements NativeRule<SumnCommonFactor.Factored> {
  static final String NAME = "sumn-common-factor";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String doc() {
    return "a sum of products with one constant factor is the product of the sum and the factor";
  }

  /**
   * A sum whose every term is a product by one constant.
   *
   * @param sum the sum's class
   * @param terms the products' other operands, in order
   * @param factor the constant's class
   */
  record Factored(int sum, int[] terms, int factor) {}

  @Override
  public void search(EGraph<TypeInfo> g, SearchDeadline deadline, Found<Factored> found) {
    for (EGraph.Held held : g.nodesWithOp(Op.SUMN.id())) {
      deadline.poll();
      int c = held.cls();
      ENode n = held.node();
      int[] terms = new int[n.arity()];
      int factor = -1;
      boolean allSame = true;
      for (int i = 0; i < n.arity() && factor != -2; i++) {
        ENode product = scaled(g, n.child(i), factor);
        if (product == null) {
          factor = -2;
        } else {
          terms[i] = g.find(product.child(0));
          factor = g.find(product.child(1));
          allSame &= terms[i] == terms[0];
        }
      }
      if (factor >= 0 && !allSame) {
        found.match(new Factored(c, terms, factor));
      }
    }
  }

  @Override
  public void apply(EGraph<TypeInfo> g, Factored m, Unions unions) {
    int sum = g.add(new ENode(Op.SUMN.id(), new long[0], m.terms()));
    unions.union(m.sum(), g.add(new ENode(Op.MUL.id(), new long[0], new int[] {sum, m.factor()})));
  }

  /**
   * A product x * k in the class whose right operand is a constant (the class {@code factor} when
   * given).
   */
  private static ENode scaled(EGraph<TypeInfo> g, int cls, int factor) {
    for (ENode m : g.nodes(cls)) {
      if (m.op() == Op.MUL.id()
          && g.data(m.child(1)).constant() != null
          && g.data(m.child(0)).constant() == null
          && (factor < 0 || g.find(m.child(1)) == factor)) {
        return m;
      }
    }
    return null;
  }
}
