package dev.entangle.refine;

import dev.entangle.core.Op;
import dev.entangle.core.TermBuilder;
import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;

/** Builds core terms straight into an e-graph; handles are e-class ids. */
final class EGraphBuilder implements TermBuilder {
  final EGraph<TypeInfo> g;

  EGraphBuilder(EGraph<TypeInfo> g) {
    this.g = g;
  }

  @Override
  public int add(int op, long[] attrs, int... children) {
    Op o = Op.of(op);
    if (children.length == 1 && o != null && o.isIdentityOfOne()) {
      return children[0];
    }
    return g.add(new ENode(op, attrs, children));
  }

  @Override
  public TypeInfo type(int handle) {
    return g.data(handle);
  }
}
