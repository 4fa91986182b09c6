package dev.entangle.egraph;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * Runs rewrites over an e-graph until nothing changes or a limit is reached (equality saturation,
 * egg's loop). Each iteration first searches every rewrite on the clean e-graph, then applies the
 * matches in rewrite order, then rebuilds. A run always says why it stopped ({@link
 * RunReport#stopReason}) and how often each rewrite fired.
 *
 * <p>A rewrite contributes at most {@link Limits#matchesPerRule} matches per iteration so that one
 * rule cannot flood the e-graph; the next iteration continues from where the cap cut it off, so no
 * match is starved. When an iteration changes nothing while some rewrite was capped, every match of
 * every rewrite is applied once before the run may call the e-graph saturated: {@link
 * StopReason#SATURATED} always means that every match was applied.
 *
 * <p>Searches are incremental where they can be: a {@link RootedSearcher} is searched only at the
 * classes that changed since the previous search ({@link EGraph#takeTouched}) and those up to its
 * {@linkplain RootedSearcher#height height} above them, since every match the previous search did
 * not see has a changed class within that height below its root. A run that stops with matches
 * found but not applied (a node or time limit, or the cap) marks the whole graph changed, so the
 * next run searches everything.
 *
 * <p>Searches over the whole graph ({@link Searcher#wholeGraph}, the decision procedures that
 * compute a form of every class) wait while the other rewrites find matches: they run in an
 * iteration where the others find none, or changed nothing, so each of their searches sees the
 * e-graph the others have settled. A run ends saturated only after an iteration that searched them
 * too.
 *
 * <p>Limits are checked before each iteration and after each application; searches stop at the
 * deadline ({@link DeadlinePassed}). The e-graph is clean when the run returns.
 */
public final class Runner {
  /**
   * @param iterations most iterations
   * @param nodes most e-nodes; the run stops once the e-graph is larger
   * @param deadlineNanos the {@link System#nanoTime} after which the run stops
   * @param matchesPerRule most matches of one rewrite applied per iteration
   */
  public record Limits(int iterations, int nodes, long deadlineNanos, int matchesPerRule) {
    public Limits {
      if (iterations <= 0 || nodes <= 0 || matchesPerRule <= 0) {
        throw new IllegalArgumentException(
            "limits must be positive: " + iterations + ", " + nodes + ", " + matchesPerRule);
      }
    }
  }

  private Runner() {}

  /**
   * Runs {@code rewrites} on {@code g}. {@code goal} is asked before each iteration and when the
   * run would end saturated; when it answers true the run stops with {@link
   * StopReason#GOAL_REACHED}.
   *
   * @throws AnalysisConflict when the rewrites merge classes with contradictory facts (the e-graph
   *     must then be discarded)
   */
  public static <D> RunReport run(
      EGraph<D> g, List<Rewrite<D>> rewrites, Limits limits, BooleanSupplier goal) {
    return run(g, rewrites, limits, goal, true);
  }

  /**
   * Runs {@code rewrites} on {@code g}, searching incrementally or not: without, every iteration
   * searches the whole e-graph (the reference the incremental search is tested against).
   */
  public static <D> RunReport run(
      EGraph<D> g,
      List<Rewrite<D>> rewrites,
      Limits limits,
      BooleanSupplier goal,
      boolean incremental) {
    Run<D> run = new Run<>(g, rewrites, limits, incremental);
    g.rebuild();
    StopReason reason;
    try {
      reason = run.iterate(goal);
    } catch (DeadlinePassed e) {
      g.rebuild();
      reason = StopReason.TIME_LIMIT;
    }
    if (reason instanceof StopReason.NodeLimit
        || reason instanceof StopReason.TimeLimit
        || run.heldBack()) {
      g.touchAll(); // matches were found but not applied: the next run must find them again
    }
    return new RunReport(reason, run.iterations, run.applied, names(rewrites));
  }

  /** The rewrites' names, as a view (a run is too short to copy them each time). */
  private static <D> List<String> names(List<Rewrite<D>> rewrites) {
    return new AbstractList<>() {
      @Override
      public String get(int i) {
        return rewrites.get(i).name();
      }

      @Override
      public int size() {
        return rewrites.size();
      }
    };
  }

  /** The state of one run. */
  private static final class Run<D> {
    final EGraph<D> g;
    final List<Rewrite<D>> rewrites;
    final Limits limits;
    final int[] applied;

    /** Per rewrite: how many matches to pass over before taking any (the cap's continuation). */
    final int[] skip;

    final boolean incremental;

    /** Whether some rewrite searches the whole graph. */
    final boolean anyWholeGraph;

    int iterations;
    boolean changed;

    /** Whether the last search left out the whole-graph searchers. */
    boolean wholeGraphWaited;

    /** Whether the next search takes the whole-graph searchers, whatever the others find. */
    boolean wholeGraphDue;

    Run(EGraph<D> g, List<Rewrite<D>> rewrites, Limits limits, boolean incremental) {
      this.g = g;
      this.rewrites = rewrites;
      this.limits = limits;
      this.incremental = incremental;
      this.applied = new int[rewrites.size()];
      this.skip = new int[rewrites.size()];
      boolean any = false;
      for (Rewrite<D> r : rewrites) {
        any |= r.searcher().wholeGraph();
      }
      this.anyWholeGraph = any;
    }

    /** Whether some rewrite's matches were held back by the cap. */
    boolean heldBack() {
      for (int k : skip) {
        if (k > 0) {
          return true;
        }
      }
      return false;
    }

    /** One found match: which rewrite, where, with which bindings. */
    private record Found(int rewrite, int eclass, Object bindings) {}

    StopReason iterate(BooleanSupplier goal) {
      while (true) {
        if (goal.getAsBoolean()) {
          return StopReason.GOAL_REACHED;
        }
        if (iterations >= limits.iterations()) {
          return new StopReason.IterationLimit(limits.iterations());
        }
        if (System.nanoTime() > limits.deadlineNanos()) {
          return StopReason.TIME_LIMIT;
        }
        iterations++;
        List<Found> found = new ArrayList<>();
        boolean capped = searchCapped(found);
        int before = g.nodeCount();
        changed = false;
        if (!applyAll(found)) {
          g.rebuild();
          return new StopReason.NodeLimit(limits.nodes());
        }
        g.rebuild();
        if (!changed && g.nodeCount() == before && capped) {
          // nothing changed, but some matches were held back: apply them all once before calling
          // the e-graph saturated
          List<Found> all = new ArrayList<>();
          for (int r = 0; r < rewrites.size(); r++) {
            CappedSink every = new CappedSink(r, 0, Integer.MAX_VALUE, all);
            rewrites.get(r).searcher().search(g, limits.deadlineNanos(), every);
          }
          boolean withinLimit = applyAll(all);
          g.rebuild();
          Arrays.fill(skip, 0);
          if (!withinLimit || g.nodeCount() > limits.nodes()) {
            return new StopReason.NodeLimit(limits.nodes());
          }
        }
        if (!changed && g.nodeCount() == before) {
          if (wholeGraphWaited) {
            wholeGraphDue = true; // the others' matches changed nothing: search the rest
            continue;
          }
          return goal.getAsBoolean() ? StopReason.GOAL_REACHED : StopReason.SATURATED;
        }
        wholeGraphDue = false;
      }
    }

    /**
     * Searches every rewrite (the whole-graph ones only when the others find nothing, or when due),
     * taking at most the cap of each, from where the last capped search stopped; returns whether
     * any rewrite had matches left over or started past its first. The matches are in rewrite
     * order.
     */
    private boolean searchCapped(List<Found> found) {
      BitSet touched = g.takeTouched();
      // the roots for each (height, reach) asked this iteration
      Map<Integer, BitSet> rootsByDepths = new HashMap<>();
      boolean capped = searchCapped(found, false, touched, rootsByDepths);
      wholeGraphWaited = anyWholeGraph && (!found.isEmpty() || capped);
      if (wholeGraphWaited && !wholeGraphDue) {
        return capped;
      }
      wholeGraphWaited = false;
      int others = found.size();
      capped |= searchCapped(found, true, touched, rootsByDepths);
      if (others > 0 && found.size() > others) {
        found.sort(Comparator.comparingInt(Found::rewrite)); // stable: each rewrite's own order
      }
      return capped;
    }

    /** {@link #searchCapped(List)} over the whole-graph rewrites, or over the others. */
    private boolean searchCapped(
        List<Found> found, boolean wholeGraph, BitSet touched, Map<Integer, BitSet> rootsByDepths) {
      boolean capped = false;
      int cap = limits.matchesPerRule();
      for (int r = 0; r < rewrites.size(); r++) {
        if (rewrites.get(r).searcher().wholeGraph() != wholeGraph) {
          continue;
        }
        final int from = skip[r];
        Searcher<D> searcher = rewrites.get(r).searcher();
        CappedSink sink = new CappedSink(r, from, cap, found);
        if (incremental && from == 0 && searcher instanceof RootedSearcher<D> rooted) {
          int key = rooted.height() * 64 + rooted.reach();
          BitSet roots = rootsByDepths.get(key);
          if (roots == null) {
            roots = g.above(g.below(touched, rooted.reach()), rooted.height());
            rootsByDepths.put(key, roots);
          }
          rooted.searchRoots(g, roots, limits.deadlineNanos(), sink);
        } else {
          searcher.search(g, limits.deadlineNanos(), sink);
        }
        boolean over = sink.count > from + cap;
        skip[r] = over ? from + cap : 0;
        capped |= over || from > 0;
      }
      return capped;
    }

    /**
     * Applies matches in order; false when the e-graph grew past the node limit (the rest are
     * skipped).
     */
    private boolean applyAll(List<Found> found) {
      Merges merges = new Merges();
      for (Found f : found) {
        merges.merged = false;
        rewrites.get(f.rewrite()).applier().apply(g, f.eclass(), f.bindings(), merges);
        if (merges.merged) {
          applied[f.rewrite()]++;
          changed = true;
        }
        if (g.nodeCount() > limits.nodes()) {
          return false;
        }
      }
      return true;
    }

    /*
     * The sink and the unions below are classes, not lambdas: they are made for every rewrite in
     * every iteration, and a capturing lambda is made through a method handle, which the client
     * compiler of a short check does not inline.
     */

    /**
     * Takes a rewrite's matches from the {@code from}-th on, at most {@code cap} of them; it
     * refuses the one past the cap, which tells that more are left.
     */
    private static final class CappedSink implements Searcher.MatchSink {
      final int rewrite;
      final int from;
      final int cap;
      final List<Found> found;
      int count;

      CappedSink(int rewrite, int from, int cap, List<Found> found) {
        this.rewrite = rewrite;
        this.from = from;
        this.cap = cap;
        this.found = found;
      }

      @Override
      public boolean match(int eclass, Object bindings) {
        int k = count++;
        if (k < from) {
          return true;
        }
        if (k < from + cap) {
          found.add(new Found(rewrite, eclass, bindings));
          return true;
        }
        return false;
      }
    }

    /** Unions an applier asks for; notes whether one merged two classes. */
    private final class Merges implements Applier.Unions {
      boolean merged;

      @Override
      public void union(int a, int b) {
        if (g.find(a) != g.find(b)) {
          g.union(a, b);
          merged = true;
        }
      }
    }
  }
}
