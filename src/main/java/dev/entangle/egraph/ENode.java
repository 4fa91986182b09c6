package dev.entangle.egraph;

import java.util.Arrays;
import java.util.function.IntFunction;

/**
 * An e-node: an operator applied to attributes and child e-classes. An immutable value; equality
 * and hash cover the operator id, the attributes and the child class ids, so two e-nodes are the
 * same exactly when all three are.
 *
 * <p>The operator is an id the language interns (the engine never sees names). Attributes carry the
 * operator's parameters (dimensions, sizes, constants as raw long bits) and are part of the node's
 * identity. Children are e-class ids; the e-graph stores nodes with canonical children only.
 */
public final class ENode {
  /** The shared empty attribute array. */
  public static final long[] NO_ATTRS = new long[0];

  /** The shared empty children array. */
  public static final int[] NO_CHILDREN = new int[0];

  final int op;
  final long[] attrs;
  final int[] children;
  private final int hash;

  /**
   * @param op the operator id
   * @param attrs the attributes (copied)
   * @param children the child e-class ids (copied)
   */
  public ENode(int op, long[] attrs, int[] children) {
    this(op, copy(attrs), copy(children), true);
  }

  /** Trusted constructor: takes ownership of the arrays. */
  private ENode(int op, long[] attrs, int[] children, boolean owned) {
    this.op = op;
    this.attrs = attrs;
    this.children = children;
    this.hash = (31 * (31 * op + Arrays.hashCode(attrs)) + Arrays.hashCode(children)) * 0x9E3779B1;
  }

  /** A node without attributes. */
  public static ENode of(int op, int... children) {
    return new ENode(op, NO_ATTRS, children);
  }

  /** A leaf (no children) with the given attributes. */
  public static ENode leaf(int op, long... attrs) {
    return new ENode(op, attrs, NO_CHILDREN);
  }

  /** Wraps arrays the caller promises never to modify again. */
  static ENode owning(int op, long[] attrs, int[] children) {
    return new ENode(
        op,
        attrs.length == 0 ? NO_ATTRS : attrs,
        children.length == 0 ? NO_CHILDREN : children,
        true);
  }

  public int op() {
    return op;
  }

  /** Attribute {@code i}. */
  public long attr(int i) {
    return attrs[i];
  }

  /** A copy of the attributes. */
  public long[] attrs() {
    return attrs.length == 0 ? NO_ATTRS : attrs.clone();
  }

  public int attrCount() {
    return attrs.length;
  }

  public int child(int i) {
    return children[i];
  }

  /** A copy of the child class ids. */
  public int[] children() {
    return children.length == 0 ? NO_CHILDREN : children.clone();
  }

  public int arity() {
    return children.length;
  }

  /** This node with other children (copied); same operator and attributes. */
  public ENode withChildren(int[] newChildren) {
    return new ENode(op, attrs, copy(newChildren), true);
  }

  /** This node with every child replaced by its root; {@code this} when already canonical. */
  ENode canonical(UnionFind uf) {
    int[] c = children;
    for (int i = 0; i < c.length; i++) {
      int root = uf.find(c[i]);
      if (root != c[i]) {
        int[] canon = c.clone();
        canon[i] = root;
        for (int j = i + 1; j < c.length; j++) {
          canon[j] = uf.find(c[j]);
        }
        return new ENode(op, attrs, canon, true);
      }
    }
    return this;
  }

  /**
   * Compares the operator, then the attributes, then the children lexicographically: the engine's
   * deterministic tie-break.
   */
  static int compare(ENode a, ENode b) {
    int c = Integer.compare(a.op, b.op);
    if (c != 0) {
      return c;
    }
    c = Arrays.compare(a.attrs, b.attrs);
    return c != 0 ? c : Arrays.compare(a.children, b.children);
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    return o instanceof ENode n
        && hash == n.hash
        && op == n.op
        && Arrays.equals(attrs, n.attrs)
        && Arrays.equals(children, n.children);
  }

  @Override
  public int hashCode() {
    return hash;
  }

  /** Renders as {@code (name[attrs] c1 c2)}, children as class ids. */
  public String render(IntFunction<String> opName) {
    StringBuilder sb = new StringBuilder("(").append(opName.apply(op));
    if (attrs.length > 0) {
      sb.append('[');
      for (int i = 0; i < attrs.length; i++) {
        sb.append(i == 0 ? "" : " ").append(attrs[i]);
      }
      sb.append(']');
    }
    for (int c : children) {
      sb.append(" c").append(c);
    }
    return sb.append(')').toString();
  }

  @Override
  public String toString() {
    return render(Integer::toString);
  }

  private static long[] copy(long[] a) {
    return a.length == 0 ? NO_ATTRS : a.clone();
  }

  private static int[] copy(int[] a) {
    return a.length == 0 ? NO_CHILDREN : a.clone();
  }
}
