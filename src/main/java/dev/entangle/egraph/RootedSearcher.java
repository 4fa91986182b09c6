package dev.entangle.egraph;

import java.util.BitSet;

/**
 * A searcher whose matches are found from their root class: one that reads nothing beyond the
 * classes its pattern reaches, at most {@link #height} parent steps below the root (nodes, facts
 * and identities of those classes). Such a rewrite can be searched incrementally: a match the last
 * search did not see has a class that changed since at most {@link #height} steps below its root
 * and those {@link #reach} steps below it (see {@link Runner}).
 *
 * @param <D> the e-graph's analysis fact type
 */
public interface RootedSearcher<D> extends Searcher<D> {
  /** How many child steps below the root the deepest class the pattern reads lies. */
  int height();

  /**
   * How many child steps below a changed class may lie a class the pattern binds whose match that
   * change can enable: 0 for a rule that reads only its pattern's classes; for one that applies
   * only when nodes built from its bindings exist already, the depth of those nodes (a new such
   * node is a changed class above the bound classes).
   */
  default int reach() {
    return 0;
  }

  /**
   * Reports every match rooted at one of {@code roots} (canonical class ids) to {@code sink} until
   * it returns false, in the order of {@link #search}.
   */
  void searchRoots(EGraph<D> g, BitSet roots, long deadline, MatchSink sink);
}
