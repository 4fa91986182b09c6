package dev.entangle.egraph;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * Runs rewrites to a fixed point (equality saturation) within limits. Immutable configuration: the
 * {@code with...} methods return a changed copy.
 *
 * <p>Each iteration searches every rule over the clean e-graph, then applies the matches (rule
 * order, then match order), performs the unions and rebuilds. The run stops when an iteration
 * changes nothing ({@link StopReason#SATURATED}), when a limit is hit, or when the caller's stop
 * condition holds after an iteration ({@link StopReason#GOAL_REACHED}; it is also checked once
 * before the first iteration).
 *
 * <p>A rule yields at most {@code matchLimit} matches per iteration so one rule cannot flood the
 * graph. A capped rule blocks saturation: if an iteration changes nothing while a rule was capped,
 * that rule's cap doubles and the run goes on, so {@code SATURATED} always means that every match
 * was applied.
 *
 * <p>Limits are checked before each iteration and between rules (a single rule's search or
 * application is not interrupted); the node limit is exceeded by at most one rule's additions.
 */
public final class Runner {
  private final int iterLimit;
  private final int nodeLimit;
  private final Duration timeLimit;
  private final long deadline;
  private final boolean hasDeadline;
  private final int matchLimit;

  /** Defaults: 30 iterations, 10,000 nodes, 5 seconds, 10,000 matches per rule per iteration. */
  public Runner() {
    this(30, 10_000, Duration.ofSeconds(5), 0, false, 10_000);
  }

  private Runner(
      int iterLimit,
      int nodeLimit,
      Duration timeLimit,
      long deadline,
      boolean hasDeadline,
      int matchLimit) {
    this.iterLimit = iterLimit;
    this.nodeLimit = nodeLimit;
    this.timeLimit = timeLimit;
    this.deadline = deadline;
    this.hasDeadline = hasDeadline;
    this.matchLimit = matchLimit;
  }

  /** At most this many iterations. */
  public Runner withIterLimit(int limit) {
    requirePositive(limit, "iteration limit");
    return new Runner(limit, nodeLimit, timeLimit, deadline, hasDeadline, matchLimit);
  }

  /** Stop once the e-graph holds more than this many nodes. */
  public Runner withNodeLimit(int limit) {
    requirePositive(limit, "node limit");
    return new Runner(iterLimit, limit, timeLimit, deadline, hasDeadline, matchLimit);
  }

  /** Stop once a run has taken this long. */
  public Runner withTimeLimit(Duration limit) {
    if (limit.isNegative()) {
      throw new IllegalArgumentException("negative time limit " + limit);
    }
    return new Runner(iterLimit, nodeLimit, limit, deadline, hasDeadline, matchLimit);
  }

  /** Also stop at this absolute {@link System#nanoTime()} value (a budget shared across runs). */
  public Runner withDeadline(long nanoTime) {
    return new Runner(iterLimit, nodeLimit, timeLimit, nanoTime, true, matchLimit);
  }

  /** At most this many matches per rule per iteration (doubling while it blocks saturation). */
  public Runner withMatchLimit(int limit) {
    requirePositive(limit, "match limit");
    return new Runner(iterLimit, nodeLimit, timeLimit, deadline, hasDeadline, limit);
  }

  public int iterLimit() {
    return iterLimit;
  }

  public int nodeLimit() {
    return nodeLimit;
  }

  public Duration timeLimit() {
    return timeLimit;
  }

  public int matchLimit() {
    return matchLimit;
  }

  /** Runs {@code rules} on {@code g} without a stop condition. */
  public <D> RunReport run(EGraph<D> g, List<Rewrite> rules) {
    return run(g, rules, () -> false);
  }

  /**
   * Runs {@code rules} on {@code g}; the e-graph is clean afterwards.
   *
   * @param stopWhen checked before the first iteration and after each one; true ends the run with
   *     {@link StopReason#GOAL_REACHED}
   * @throws IllegalArgumentException when two rules share a name
   * @throws AnalysisConflict when the rules merge classes with contradictory facts (the e-graph
   *     must then be discarded)
   */
  public <D> RunReport run(EGraph<D> g, List<Rewrite> rules, BooleanSupplier stopWhen) {
    Objects.requireNonNull(stopWhen, "stopWhen");
    long start = System.nanoTime();
    long budget = saturatingNanos(timeLimit);
    if (hasDeadline) {
      budget = Math.min(budget, deadline - start);
    }
    int n = rules.size();
    checkNames(rules);
    int[] caps = new int[n];
    Arrays.fill(caps, matchLimit);
    int[] applied = new int[n];
    List<List<Match>> found = new ArrayList<>(Collections.nCopies(n, List.of()));
    boolean[] merged = new boolean[1];
    Applier.Unions unions =
        (a, b) -> {
          if (g.union(a, b)) {
            merged[0] = true;
          }
        };

    g.rebuild();
    int iterations = 0;
    StopReason reason = stopWhen.getAsBoolean() ? StopReason.GOAL_REACHED : null;
    while (reason == null) {
      if (iterations >= iterLimit) {
        reason = StopReason.ITERATION_LIMIT;
        break;
      }
      if (g.nodeCount() > nodeLimit) {
        reason = StopReason.NODE_LIMIT;
        break;
      }
      if (System.nanoTime() - start >= budget) {
        reason = StopReason.TIME_LIMIT;
        break;
      }
      iterations++;

      boolean capped = false;
      boolean[] cappedRule = new boolean[n];
      for (int i = 0; i < n && reason == null; i++) {
        int ask = caps[i] == Integer.MAX_VALUE ? caps[i] : caps[i] + 1;
        List<Match> ms = rules.get(i).matcher().search(g, ask);
        if (ms.size() > caps[i]) {
          ms = ms.subList(0, caps[i]);
          capped = cappedRule[i] = true;
        }
        found.set(i, ms);
        if (System.nanoTime() - start >= budget) {
          reason = StopReason.TIME_LIMIT;
        }
      }
      if (reason != null) {
        break; // nothing applied: the graph is as it was
      }

      int nodesBefore = g.nodeCount();
      int classesBefore = g.classCount();
      boolean changed = false;
      for (int i = 0; i < n && reason == null; i++) {
        Rewrite rule = rules.get(i);
        for (Match m : found.get(i)) {
          if (!rule.condition().test(g, m)) {
            continue;
          }
          int before = g.nodeCount();
          merged[0] = false;
          rule.applier().apply(g, m, unions);
          if (merged[0] || g.nodeCount() != before) {
            applied[i]++;
            changed = true;
          }
        }
        found.set(i, List.of());
        if (g.nodeCount() > nodeLimit) {
          reason = StopReason.NODE_LIMIT;
        } else if (System.nanoTime() - start >= budget) {
          reason = StopReason.TIME_LIMIT;
        }
      }
      g.rebuild();
      if (stopWhen.getAsBoolean()) {
        reason = StopReason.GOAL_REACHED;
        break;
      }
      if (reason != null) {
        break;
      }
      changed |= g.nodeCount() != nodesBefore || g.classCount() != classesBefore;
      if (!changed) {
        if (!capped) {
          reason = StopReason.SATURATED;
        } else {
          for (int i = 0; i < n; i++) {
            if (cappedRule[i]) {
              caps[i] = caps[i] > Integer.MAX_VALUE / 2 ? Integer.MAX_VALUE : caps[i] * 2;
            }
          }
        }
      }
    }
    Map<String, Integer> counts = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      counts.put(rules.get(i).name(), applied[i]);
    }
    return new RunReport(
        reason,
        iterations,
        counts,
        g.nodeCount(),
        g.classCount(),
        Duration.ofNanos(System.nanoTime() - start));
  }

  private static void checkNames(List<Rewrite> rules) {
    Set<String> names = new HashSet<>();
    for (Rewrite r : rules) {
      if (!names.add(r.name())) {
        throw new IllegalArgumentException("two rewrites are named " + r.name());
      }
    }
  }

  private static long saturatingNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE;
    }
  }

  private static void requirePositive(int value, String what) {
    if (value <= 0) {
      throw new IllegalArgumentException(what + " must be positive, got " + value);
    }
  }
}
