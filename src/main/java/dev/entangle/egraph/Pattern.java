package dev.entangle.egraph;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.IntFunction;

/**
 * A term with holes, matched against e-classes: a {@link Var} matches any class and binds it (a
 * repeated variable means the same class); a {@link Node} matches a class holding a node with the
 * same operator, the same number of attributes and children, matching attributes and children.
 */
public sealed interface Pattern permits Pattern.Var, Pattern.Node {
  /** Matches any e-class and binds it to {@code name}. */
  record Var(String name) implements Pattern {
    public Var {
      checkName(name);
    }

    @Override
    public String toString() {
      return "?" + name;
    }
  }

  /** Matches a node with operator {@code op} whose attributes and children match. */
  record Node(int op, List<AttrPattern> attrs, List<Pattern> children) implements Pattern {
    public Node {
      if (op < 0) {
        throw new IllegalArgumentException("negative operator id " + op);
      }
      attrs = List.copyOf(attrs);
      children = List.copyOf(children);
    }

    @Override
    public String toString() {
      return render(Integer::toString);
    }
  }

  static Pattern var(String name) {
    return new Var(name);
  }

  /** A node pattern without attributes. */
  static Pattern node(int op, Pattern... children) {
    return new Node(op, List.of(), Arrays.asList(children));
  }

  /** A node pattern with attributes. */
  static Pattern node(int op, List<AttrPattern> attrs, Pattern... children) {
    return new Node(op, attrs, Arrays.asList(children));
  }

  /** The class variables in order of first occurrence (left to right, depth first). */
  default Set<String> classVars() {
    Set<String> out = new LinkedHashSet<>();
    collectVars(this, out, null);
    return Collections.unmodifiableSet(out);
  }

  /** The attribute variables in order of first occurrence. */
  default Set<String> attrVars() {
    Set<String> out = new LinkedHashSet<>();
    collectVars(this, null, out);
    return Collections.unmodifiableSet(out);
  }

  /** Whether some attribute is {@link AttrPattern.Any} (such a pattern cannot be instantiated). */
  default boolean hasWildcard() {
    if (this instanceof Node n) {
      for (AttrPattern a : n.attrs()) {
        if (a instanceof AttrPattern.Any) {
          return true;
        }
      }
      for (Pattern c : n.children()) {
        if (c.hasWildcard()) {
          return true;
        }
      }
    }
    return false;
  }

  /** Renders as {@code (name[attrs] child...)} with variables as {@code ?x}. */
  default String render(IntFunction<String> opName) {
    if (this instanceof Var v) {
      return v.toString();
    }
    Node n = (Node) this;
    StringBuilder sb = new StringBuilder("(").append(opName.apply(n.op()));
    if (!n.attrs().isEmpty()) {
      sb.append('[');
      for (int i = 0; i < n.attrs().size(); i++) {
        sb.append(i == 0 ? "" : " ").append(n.attrs().get(i));
      }
      sb.append(']');
    }
    for (Pattern c : n.children()) {
      sb.append(' ').append(c.render(opName));
    }
    return sb.append(')').toString();
  }

  private static void collectVars(Pattern p, Set<String> cls, Set<String> attrs) {
    if (p instanceof Var v) {
      if (cls != null) {
        cls.add(v.name());
      }
      return;
    }
    Node n = (Node) p;
    if (attrs != null) {
      for (AttrPattern a : n.attrs()) {
        if (a instanceof AttrPattern.Var v) {
          attrs.add(v.name());
        }
      }
    }
    for (Pattern c : n.children()) {
      collectVars(c, cls, attrs);
    }
  }

  private static void checkName(String name) {
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException("a pattern variable needs a non-empty name");
    }
  }
}
