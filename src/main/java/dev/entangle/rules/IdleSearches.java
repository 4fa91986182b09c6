package dev.entangle.rules;

import dev.entangle.egraph.EGraph;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * Remembers, per e-graph, the state in which a native lemma's search last found nothing, so that
 * searching the same unchanged state again can be skipped. The state is the e-graph's version (it
 * changes with every new class and union) with its node and class counts; skipping can only pass
 * over matches that are not there.
 */
public final class IdleSearches {
  private record State(long version, int nodes, int classes) {
    static State of(EGraph<?> g) {
      return new State(g.version(), g.nodeCount(), g.classCount());
    }
  }

  private final Map<EGraph<?>, State> idle = Collections.synchronizedMap(new WeakHashMap<>());

  /** Whether the last search of {@code g} found nothing and {@code g} has not changed since. */
  public boolean unchanged(EGraph<?> g) {
    return State.of(g).equals(idle.get(g));
  }

  /** Records the outcome of a search of {@code g} in its current state. */
  public void searched(EGraph<?> g, boolean found) {
    if (found) {
      idle.remove(g);
    } else {
      idle.put(g, State.of(g));
    }
  }
}
