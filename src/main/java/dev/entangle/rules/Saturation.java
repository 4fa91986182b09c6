package dev.entangle.rules;

import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.StopReason;
import dev.entangle.ops.TypeInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Runs lemmas over an e-graph until nothing changes or a limit is reached, egg's way: each
 * iteration first finds every match on the clean e-graph, then applies them all, then rebuilds.
 * A run always says why it stopped, and counts how often each lemma fired.
 */
public final class Saturation {
  /**
   * @param iterations most iterations
   * @param nodes most e-nodes; the run stops once the e-graph is larger
   * @param deadlineNanos {@link System#nanoTime} after which the run stops
   * @param matchesPerRule most matches of one rule used per iteration
   */
  public record Limits(int iterations, int nodes, long deadlineNanos, int matchesPerRule) {}

  /** How a run ended. */
  public record Report(StopReason reason, int iterations, int[] fired) {}

  private final List<Rule> rules;
  private final List<NativeRule> natives;
  private final List<String> names;

  public Saturation(Lemmas lemmas) {
    this.rules = lemmas.rules();
    this.natives = lemmas.natives();
    this.names = lemmas.names();
  }

  /** Lemma names, in the order of {@link Report#fired()}. */
  public List<String> names() {
    return names;
  }

  /** Finds every match of every rule, uncapped, and applies them; returns whether anything changed. */
  private boolean applyAll(RuleMatcher matcher, RuleApplier applier, EGraph<TypeInfo> g, int[] fired) {
    List<Object[]> found = new ArrayList<>();
    List<int[]> where = new ArrayList<>();
    for (int r = 0; r < rules.size(); r++) {
      final int ri = r;
      matcher.search(rules.get(r), (cls, b) -> {
        found.add(b);
        where.add(new int[] {ri, cls});
      });
    }
    return Boolean.TRUE.equals(apply(applier, g, found, where, fired, Integer.MAX_VALUE));
  }

  /**
   * Applies matches in order; returns whether anything changed, or null when the e-graph grew past
   * {@code nodeLimit} (the rest are not applied).
   */
  private Boolean apply(RuleApplier applier, EGraph<TypeInfo> g, List<Object[]> found, List<int[]> where,
      int[] fired, int nodeLimit) {
    boolean changed = false;
    for (int i = 0; i < found.size(); i++) {
      int ri = where.get(i)[0];
      int cls = where.get(i)[1];
      int rhs = applier.apply(rules.get(ri), found.get(i));
      if (rhs >= 0 && g.find(rhs) != g.find(cls)) {
        g.union(cls, rhs);
        fired[ri]++;
        changed = true;
      }
      if (g.nodeCount() > nodeLimit) {
        return null;
      }
    }
    return changed;
  }

  /**
   * Saturates {@code g}. {@code goal} is asked after every iteration; when it answers true the run
   * stops with {@link StopReason#GOAL_REACHED}.
   */
  public Report run(EGraph<TypeInfo> g, Limits limits, BooleanSupplier goal) {
    RuleMatcher matcher = new RuleMatcher(g, limits.deadlineNanos());
    RuleApplier applier = new RuleApplier(g);
    int[] fired = new int[names.size()];
    int[] skip = new int[rules.size()];
    g.rebuild();
    int[] iter = {0};
    try {
      return iterate(g, limits, goal, matcher, applier, fired, skip, iter);
    } catch (RuleMatcher.DeadlinePassed e) {
      g.rebuild();
      return new Report(StopReason.TIME_LIMIT, iter[0], fired);
    }
  }

  private Report iterate(EGraph<TypeInfo> g, Limits limits, BooleanSupplier goal, RuleMatcher matcher,
      RuleApplier applier, int[] fired, int[] skip, int[] iterations) {
    int iter = 0;
    while (true) {
      if (goal.getAsBoolean()) {
        return new Report(StopReason.GOAL_REACHED, iter, fired);
      }
      if (iter >= limits.iterations()) {
        return new Report(StopReason.ITERATION_LIMIT, iter, fired);
      }
      if (System.nanoTime() > limits.deadlineNanos()) {
        return new Report(StopReason.TIME_LIMIT, iter, fired);
      }
      iter++;
      iterations[0] = iter;
      List<Object[]> found = new ArrayList<>();
      List<int[]> where = new ArrayList<>();
      boolean capped = false;
      for (int r = 0; r < rules.size(); r++) {
        final int ri = r;
        int[] count = {0};
        Rule rule = rules.get(r);
        int from = skip[r];
        try {
          matcher.search(
              rule,
              (cls, b) -> {
                int k = count[0]++;
                if (k >= from && k < from + limits.matchesPerRule()) {
                  found.add(b);
                  where.add(new int[] {ri, cls});
                } else if (k >= from + limits.matchesPerRule()) {
                  throw RuleMatcher.Enough.INSTANCE; // one past the cap tells that more are left
                }
              });
        } catch (RuleMatcher.Enough e) {
          // the cap is reached; the next iteration goes on from there
        }
        // past the cap, the next iteration takes the next matches (no match is starved)
        boolean over = count[0] > from + limits.matchesPerRule();
        skip[r] = over ? from + limits.matchesPerRule() : 0;
        capped |= over || from > 0;
      }
      List<List<java.util.function.Consumer<java.util.function.IntBinaryOperator>>> nativeFound = new ArrayList<>();
      for (NativeRule n : natives) {
        nativeFound.add(n.search(g));
      }
      int before = g.nodeCount();
      Boolean applied = apply(applier, g, found, where, fired, limits.nodes());
      if (applied == null) {
        g.rebuild();
        return new Report(StopReason.NODE_LIMIT, iter, fired);
      }
      boolean changed = applied;
      for (int k = 0; k < natives.size(); k++) {
        final int idx = rules.size() + k;
        for (var action : nativeFound.get(k)) {
          boolean[] did = {false};
          action.accept((a, c) -> {
            if (g.find(a) != g.find(c)) {
              g.union(a, c);
              did[0] = true;
            }
            return 0;
          });
          if (did[0]) {
            fired[idx]++;
            changed = true;
          }
        }
      }
      g.rebuild();
      if (!changed && g.nodeCount() == before && capped) {
        // nothing changed, but some matches were held back: apply them all once before
        // calling the e-graph saturated
        changed = applyAll(matcher, applier, g, fired);
        g.rebuild();
        java.util.Arrays.fill(skip, 0);
        if (g.nodeCount() > limits.nodes()) {
          return new Report(StopReason.NODE_LIMIT, iter, fired);
        }
      }
      if (!changed && g.nodeCount() == before) {
        return new Report(goal.getAsBoolean() ? StopReason.GOAL_REACHED : StopReason.SATURATED, iter, fired);
      }
    }
  }
}
