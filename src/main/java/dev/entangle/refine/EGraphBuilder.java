package dev.entangle.refine;

import dev.entangle.core.IdRange;
import dev.entangle.core.Op;
import dev.entangle.core.TermBuilder;
import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Builds core terms straight into an e-graph; handles are e-class ids. A G_d tensor the relation
 * states a range of ({@link IdRange}) is, the first time it is built, made equal to itself clamped
 * into that range ({@code minimum(maximum(t, lo), hi - 1)}), which is how the lemmas learn the
 * fact: the bounds of ids ({@code rules.IdBounds}) read it from the clamp.
 */
final class EGraphBuilder implements TermBuilder {
  final EGraph<TypeInfo> g;
  private final Map<Integer, IdRange> ranges;
  private final Set<Integer> clamped = new HashSet<>();

  EGraphBuilder(EGraph<TypeInfo> g, Map<Integer, IdRange> ranges) {
    this.g = g;
    this.ranges = ranges;
  }

  @Override
  public int add(int op, long[] attrs, int... children) {
    Op o = Op.of(op);
    if (children.length == 1 && o != null && o.isIdentityOfOne()) {
      return children[0];
    }
    int c = g.add(new ENode(op, attrs, children));
    if (op == Op.TENSOR.id() && !ranges.isEmpty()) {
      IdRange r = ranges.get((int) attrs[0]);
      if (r != null && clamped.add((int) attrs[0])) {
        g.union(c, clamp(c, r));
      }
    }
    return c;
  }

  private int clamp(int t, IdRange r) {
    TypeInfo type = g.data(t);
    int atLeast = add(Op.MAXIMUM.id(), new long[0], t, filled(type, r.lo()));
    return add(Op.MINIMUM.id(), new long[0], atLeast, filled(type, r.hi() - 1));
  }

  private int filled(TypeInfo type, long value) {
    int s = add(Op.SCALAR.id(), new long[] {Double.doubleToLongBits(value), type.dtype()});
    return add(Op.EXPAND.id(), type.shape().clone(), s);
  }

  @Override
  public TypeInfo type(int handle) {
    return g.data(handle);
  }
}
