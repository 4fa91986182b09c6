package dev.entangle.egraph;

/**
 * The left half of a {@link Rewrite}: finds where the rewrite applies on a clean e-graph. A
 * searcher reports matches in a fixed order (so runs are deterministic) and must poll {@code
 * deadline} often enough that a pathological search cannot outlive it.
 *
 * @param <D> the e-graph's analysis fact type
 */
@FunctionalInterface
public interface Searcher<D> {
  /** Receives matches; returns false when it has seen enough (the search then ends quietly). */
  @FunctionalInterface
  interface MatchSink {
    boolean match(int eclass, Object bindings);
  }

  /**
   * Reports every match on {@code g} to {@code sink} until it returns false.
   *
   * @param deadline the {@link System#nanoTime} after which the search throws {@link
   *     DeadlinePassed}, or {@link Long#MAX_VALUE} for none
   */
  void search(EGraph<D> g, long deadline, MatchSink sink);

  /**
   * Whether each search computes a form of every class of the e-graph (a decision procedure), which
   * costs more than finding a pattern's matches: a caller may then run such searchers only where
   * the others did not suffice.
   */
  default boolean wholeGraph() {
    return false;
  }
}
