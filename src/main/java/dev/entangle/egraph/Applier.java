package dev.entangle.egraph;

/**
 * The right half of a {@link Rewrite}: given one match, adds what it needs to the e-graph and
 * reports the classes to make equal; the {@link Runner} performs the unions.
 *
 * @param <D> the e-graph's analysis fact type
 */
@FunctionalInterface
public interface Applier<D> {
  /** Receives the pairs of classes an application wants merged. */
  @FunctionalInterface
  interface Unions {
    void union(int a, int b);
  }

  /**
   * Applies one match. The e-graph may hold pending unions from earlier applications of the same
   * iteration: ids in the match may no longer be canonical, and lookups may miss equalities that
   * the next rebuild would reveal.
   */
  void apply(EGraph<D> g, int eclass, Object bindings, Unions unions);
}
