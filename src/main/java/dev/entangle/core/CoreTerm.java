package dev.entangle.core;

import dev.entangle.egraph.Term;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * A term of the core language over G_d values: a {@link Op#TENSOR} leaf (attribute: the value id)
 * or an operator over terms. The one expression type of relations (input, output, equalities,
 * expectations) and of the terms a failure reports.
 */
public record CoreTerm(int op, long[] attrs, List<CoreTerm> children) {
  public CoreTerm {
    children = List.copyOf(children);
  }

  /** The leaf for G_d value {@code id}. */
  public static CoreTerm tensor(int id) {
    return new CoreTerm(Op.TENSOR.id(), new long[] {id}, List.of());
  }

  /** The same tree as an extracted e-graph term. */
  public static CoreTerm of(Term t) {
    List<CoreTerm> kids = new ArrayList<>(t.children().size());
    for (Term c : t.children()) {
      kids.add(of(c));
    }
    return new CoreTerm(t.op(), t.attrs(), kids);
  }

  public boolean isTensor() {
    return op == Op.TENSOR.id();
  }

  /**
   * Whether the term holds a factor the checker derived from the ranks' shares ({@link
   * Op#derivedScale}), which no output relation may rest on.
   */
  public boolean restsOnDerivedFactor() {
    return (op == Op.SCALE.id() && Op.derivedScale(attrs))
        || children.stream().anyMatch(CoreTerm::restsOnDerivedFactor);
  }

  /** Adds the value ids of the leaves under a derived factor ({@link #restsOnDerivedFactor}). */
  public void derivedFactorLeaves(Set<Integer> out) {
    if (op == Op.SCALE.id() && Op.derivedScale(attrs)) {
      leaves(out);
      return;
    }
    for (CoreTerm c : children) {
      c.derivedFactorLeaves(out);
    }
  }

  /** The value id of a leaf. */
  public int tensorId() {
    return (int) attrs[0];
  }

  /** Whether every node is a clean operator (docs/formats.md, Clean functions). */
  public boolean isClean() {
    Op o = Op.of(op);
    if (o == null || !o.isClean()) {
      return false;
    }
    for (CoreTerm c : children) {
      if (!c.isClean()) {
        return false;
      }
    }
    return true;
  }

  /** Adds the term to a builder; returns its handle. */
  public int add(TermBuilder b) {
    int[] kids = new int[children.size()];
    for (int i = 0; i < kids.length; i++) {
      kids[i] = children.get(i).add(b);
    }
    return b.add(op, attrs, kids);
  }

  /** The same term with every leaf's value id {@code i} replaced by {@code ids[i]}. */
  public CoreTerm mapLeaves(int[] ids) {
    if (isTensor()) {
      return tensor(ids[tensorId()]);
    }
    List<CoreTerm> kids = new ArrayList<>(children.size());
    for (CoreTerm c : children) {
      kids.add(c.mapLeaves(ids));
    }
    return new CoreTerm(op, attrs, kids);
  }

  /** The same term with every leaf reading G_d value {@code from} reading {@code to} instead. */
  public CoreTerm withLeaf(int from, int to) {
    if (isTensor()) {
      return tensorId() == from ? tensor(to) : this;
    }
    List<CoreTerm> kids = new ArrayList<>(children.size());
    for (CoreTerm c : children) {
      kids.add(c.withLeaf(from, to));
    }
    return new CoreTerm(op, attrs, kids);
  }

  /** Collects the ids of the G_d values it reads. */
  public void leaves(Set<Integer> out) {
    if (isTensor()) {
      out.add(tensorId());
    }
    for (CoreTerm c : children) {
      c.leaves(out);
    }
  }

  /** The number of nodes. */
  public int size() {
    int n = 1;
    for (CoreTerm c : children) {
      n += c.size();
    }
    return n;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CoreTerm e
        && e.op == op
        && Arrays.equals(e.attrs, attrs)
        && e.children.equals(children);
  }

  @Override
  public int hashCode() {
    return (op * 31 + Arrays.hashCode(attrs)) * 31 + children.hashCode();
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("(").append(op).append(Arrays.toString(attrs));
    children.forEach(c -> sb.append(' ').append(c));
    return sb.append(')').toString();
  }
}
