package dev.entangle.refine;

import dev.entangle.lower.Steps;
import dev.entangle.ops.Op;
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

  int leaf(int id) {
    return b.add(Op.TENSOR, new long[] {id});
  }

  private int constantTerm(int id) {
    Integer h = inlined.get(id);
    if (h == null) {
      h = definition(id);
      inlined.put(id, h);
    }
    return h;
  }

  /** The term that computes value {@code id} from its dependencies. */
  int definition(int id) {
    return m.program.define(id, this, b);
  }

  @Override
  public int of(int valueId) {
    return operand(valueId);
  }

  @Override
  public void union(int a, int c) {
    b.g.union(a, c);
  }
}
