package dev.entangle.egraph;

import java.util.BitSet;

/**
 * A searcher whose matches are found from their root class: one that reads nothing beyond the
 * classes its pattern reaches, at most {@link #height} parent steps below the root (nodes, facts
 * and identities of those classes). Such a rewrite can be searched incrementally: a match the last
 * search did not see has a class that changed since at most {@link #height} steps below its root
 * (see {@link Runner}).
 *
 * @param <D> the e-graph's analysis fact type
 */
public interface RootedSearcher<D> extends Searcher<D> {
  /** How many child steps below the root the deepest class the pattern reads lies. */
  int height();

  /**
   * Reports every match rooted at one of {@code roots} (canonical class ids) to {@code sink} until
   * it returns false, in the order of {@link #search}.
   */
  void searchRoots(EGraph<D> g, BitSet roots, long deadline, MatchSink sink);
}
