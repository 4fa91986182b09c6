package dev.entangle.refine;

import dev.entangle.core.Op;
import dev.entangle.core.Steps;
import dev.entangle.core.TermBuilder;
import dev.entangle.core.TypeInfo;
import java.util.HashMap;
import java.util.Map;

/**
 * Adds G_d facts to one e-graph: each value is a leaf {@code tensor[id]}, and a value's definition
 * is its operation's term over its dependencies' leaves (a collective's reads every member's
 * input). Values computed from constants alone are inlined as their full term, so a constant in G_d
 * meets the same constant in G_s.
 */
final class GdTerms implements Steps.Refs {
  private final GdModel m;
  private final EGraphBuilder b;
  private final Map<Integer, Integer> inlined = new HashMap<>();

  GdTerms(GdModel m, EGraphBuilder b) {
    this.m = m;
    this.b = b;
  }

  /** The class of a value as an operand: its constant term, or its leaf. */
  int operand(int id) {
    return m.constant[id] ? constantTerm(id) : leaf(id);
  }

  /** The leaf of a value: its representative's ({@link GdModel#rep}). */
  int leaf(int id) {
    return b.add(Op.TENSOR, new long[] {m.rep(id)});
  }

  private int constantTerm(int id) {
    Integer h = inlined.get(id);
    if (h == null) {
      h = definition(id);
      inlined.put(id, h);
    }
    return h;
  }

  /**
   * The term that computes value {@code id} from its dependencies: its definer's ({@link
   * GdModel#definer}), with every value named in it (a collective group's facts name members'
   * results) replaced by its representative.
   */
  int definition(int id) {
    return m.program.define(m.definer(id), this, representatives);
  }

  /** Builds into {@code b}, naming representatives only. */
  private final TermBuilder representatives =
      new TermBuilder() {
        @Override
        public int add(int op, long[] attrs, int... children) {
          if (op == Op.TENSOR.id()) {
            return leaf((int) attrs[0]);
          }
          return b.add(op, attrs, children);
        }

        @Override
        public TypeInfo type(int handle) {
          return b.type(handle);
        }
      };

  @Override
  public int of(int valueId) {
    return operand(valueId);
  }

  @Override
  public void union(int a, int c) {
    b.g.union(a, c);
  }
}
