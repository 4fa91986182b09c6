package dev.entangle.egraph;

import java.util.List;

/** Builds a pattern's instance under a substitution: by adding it, or by finding it. */
public final class Instantiator {
  private Instantiator() {}

  /**
   * Adds the instance of {@code p} under {@code s} to the e-graph and returns its class. Every
   * variable of {@code p} must be bound in {@code s} and no attribute may be a wildcard.
   *
   * @throws IllegalArgumentException on an unbound variable or a wildcard attribute
   */
  public static int instantiate(EGraph<?> g, Pattern p, Subst s) {
    if (p instanceof Pattern.Var v) {
      return g.find(s.cls(v.name()));
    }
    Pattern.Node n = (Pattern.Node) p;
    List<Pattern> cp = n.children();
    int[] children = new int[cp.size()];
    for (int i = 0; i < children.length; i++) {
      children[i] = instantiate(g, cp.get(i), s);
    }
    return g.add(ENode.owning(n.op(), attrs(n, s), children));
  }

  /**
   * The class of the instance of {@code p} under {@code s} when the whole instance already exists
   * in the e-graph, else -1; adds nothing. On a graph that is not clean it may miss instances that
   * congruence would reveal.
   *
   * @throws IllegalArgumentException on an unbound variable or a wildcard attribute
   */
  public static int lookupInstance(EGraph<?> g, Pattern p, Subst s) {
    if (p instanceof Pattern.Var v) {
      return g.find(s.cls(v.name()));
    }
    Pattern.Node n = (Pattern.Node) p;
    List<Pattern> cp = n.children();
    int[] children = new int[cp.size()];
    for (int i = 0; i < children.length; i++) {
      int c = lookupInstance(g, cp.get(i), s);
      if (c < 0) {
        return -1;
      }
      children[i] = c;
    }
    return g.lookup(ENode.owning(n.op(), attrs(n, s), children));
  }

  private static long[] attrs(Pattern.Node n, Subst s) {
    List<AttrPattern> ap = n.attrs();
    long[] attrs = new long[ap.size()];
    for (int i = 0; i < attrs.length; i++) {
      AttrPattern a = ap.get(i);
      if (a instanceof AttrPattern.Lit lit) {
        attrs[i] = lit.value();
      } else if (a instanceof AttrPattern.Var v) {
        attrs[i] = s.attr(v.name());
      } else {
        throw new IllegalArgumentException(
            "cannot instantiate " + n + ": attribute " + i + " is a wildcard");
      }
    }
    return attrs;
  }
}
