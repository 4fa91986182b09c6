package dev.entangle.egraph;

import java.util.Set;

/**
 * The right half of a {@link Rewrite}: given a match, adds what it needs to the e-graph and reports
 * the classes to make equal; the {@link Runner} performs the unions.
 */
public interface Applier {
  /** Receives the pairs of classes an application wants merged. */
  @FunctionalInterface
  interface Unions {
    void union(int a, int b);
  }

  /**
   * Applies to one match. The e-graph may have pending unions from earlier applications of the same
   * iteration: ids in {@code m} may no longer be canonical, and lookups may miss equalities that
   * the next rebuild would reveal.
   */
  void apply(EGraph<?> g, Match m, Unions unions);

  /** The class variables this applier reads from a match (checked when the rewrite is built). */
  default Set<String> classVars() {
    return Set.of();
  }

  /**
   * The attribute variables this applier reads from a match (checked when the rewrite is built).
   */
  default Set<String> attrVars() {
    return Set.of();
  }
}
