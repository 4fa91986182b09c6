package dev.entangle.egraph;

import java.util.List;
import java.util.function.IntFunction;

/**
 * An extracted term: a node (its children still name the e-classes it was taken from) and the terms
 * chosen for those children, in order. Subterms of one extraction may be shared.
 */
public record Term(ENode node, List<Term> children) {
  public Term {
    children = List.copyOf(children);
    if (children.size() != node.arity()) {
      throw new IllegalArgumentException(
          "a term for " + node + " needs " + node.arity() + " children, got " + children.size());
    }
  }

  public int op() {
    return node.op();
  }

  public long attr(int i) {
    return node.attr(i);
  }

  public long[] attrs() {
    return node.attrs();
  }

  public Term child(int i) {
    return children.get(i);
  }

  /** The number of nodes of the term as a tree. */
  public long size() {
    long s = 1;
    for (Term c : children) {
      s += c.size();
    }
    return s;
  }

  /** Renders as an s-expression: {@code name}, {@code (name[a b] child...)}. */
  public String render(IntFunction<String> opName) {
    StringBuilder sb = new StringBuilder();
    render(sb, opName);
    return sb.toString();
  }

  private void render(StringBuilder sb, IntFunction<String> opName) {
    long[] attrs = node.attrs;
    if (attrs.length == 0 && children.isEmpty()) {
      sb.append(opName.apply(node.op()));
      return;
    }
    sb.append('(').append(opName.apply(node.op()));
    if (attrs.length > 0) {
      sb.append('[');
      for (int i = 0; i < attrs.length; i++) {
        sb.append(i == 0 ? "" : " ").append(attrs[i]);
      }
      sb.append(']');
    }
    for (Term c : children) {
      sb.append(' ');
      c.render(sb, opName);
    }
    sb.append(')');
  }

  @Override
  public String toString() {
    return render(Integer::toString);
  }
}
