package dev.entangle.rules;

import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.Applier.Unions;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;

/**
 * A native lemma's match that says the class {@code cls} equals the node {@code
 * op[attrs](children)} (a concat of tiles, a combination of masks, a reshape), which its
 * application adds. The arrays are the match's own.
 */
record EqualsNode(int cls, int op, long[] attrs, int[] children) {
  /** Adds the node and asks for its union with the class. */
  void apply(EGraph<TypeInfo> g, Unions unions) {
    unions.union(cls, g.add(new ENode(op, attrs, children)));
  }
}
