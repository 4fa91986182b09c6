package dev.entangle.core;

import dev.entangle.egraph.Analysis;
import dev.entangle.egraph.AnalysisConflict;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;

/**
 * The e-class analysis of the core language: every class carries its {@link TypeInfo}. Two classes
 * of different shapes, or of different known constant values, can never be equal: merging them is a
 * bug in a lemma and raises {@link AnalysisConflict}.
 */
public final class TypeAnalysis implements Analysis<TypeInfo> {
  private final Shapes shapes;

  public TypeAnalysis(Shapes shapes) {
    this.shapes = shapes;
  }

  @Override
  public TypeInfo make(EGraph<TypeInfo> g, ENode n) {
    TypeInfo[] c = new TypeInfo[n.arity()];
    for (int i = 0; i < c.length; i++) {
      c[i] = g.data(n.child(i));
    }
    return shapes.infer(n.op(), n.attrs(), c);
  }

  @Override
  public TypeInfo merge(TypeInfo a, TypeInfo b) {
    if (!a.sameShape(b)) {
      throw new AnalysisConflict("cannot equate a value of type " + a + " with one of type " + b);
    }
    if (a.constant() != null && b.constant() != null && !a.constant().equals(b.constant())) {
      throw new AnalysisConflict(
          "cannot equate constants " + a.constant() + " and " + b.constant());
    }
    if (a.constant() == null && b.constant() != null) {
      return a.withConstant(b.constant());
    }
    return a;
  }
}
