package dev.entangle.egraph;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The runner's loop: why a run stops, match caps, statistics, goals and deadlines. */
class RunnerTest {
  private static final Rewrite<Void> COMM =
      Arith.onNodes("comm-add", Arith.ADD, (g, x) -> g.add(ENode.of(Arith.ADD, x[1], x[0])));

  /** (* c c) for the class c of every *-node: one new node per iteration, forever. */
  private static final Rewrite<Void> GROW =
      new Rewrite<>(
          "grow",
          (g, deadline, sink) -> {
            for (int c : g.classesWithOp(Arith.MUL)) {
              if (!sink.match(c, null)) {
                return;
              }
            }
          },
          (g, cls, b, unions) -> g.add(ENode.of(Arith.MUL, cls, cls)));

  /** Adds a fresh symbol for every class: the graph doubles each iteration. */
  private static final Rewrite<Void> DOUBLE =
      new Rewrite<>(
          "double",
          (g, deadline, sink) -> {
            for (int c : g.classIds()) {
              if (!sink.match(c, null)) {
                return;
              }
            }
          },
          (g, cls, b, unions) -> g.add(ENode.leaf(Arith.VAR, -g.nodeCount())));

  private static EGraph<Void> graph() {
    return new EGraph<>(Analysis.none());
  }

  private static Runner.Limits limits(int iterations, int nodes, int cap) {
    return new Runner.Limits(iterations, nodes, Long.MAX_VALUE, cap);
  }

  private static RunReport run(EGraph<Void> g, List<Rewrite<Void>> rules, Runner.Limits limits) {
    return Runner.run(g, rules, limits, () -> false);
  }

  @Test
  void saturatesWhenAnIterationChangesNothing() {
    EGraph<Void> g = graph();
    int ab = Arith.add(g, "(+ a b)");
    RunReport r = run(g, List.of(COMM), limits(30, 1000, 1000));
    assertEquals(StopReason.SATURATED, r.stopReason());
    assertTrue(r.saturated());
    assertFalse(r.hitLimit());
    assertEquals(2, r.iterations(), "one to add b + a, one to see nothing change");
    assertArrayEquals(new int[] {1}, r.applied());
    assertEquals(4, g.nodeCount());
    assertEquals(ab, Arith.add(g, "(+ b a)"));
    assertTrue(g.isClean());
  }

  @Test
  void reportsTheIterationLimit() {
    EGraph<Void> g = graph();
    Arith.add(g, "(* a a)");
    RunReport r = run(g, List.of(GROW), limits(5, 1000, 1000));
    assertEquals(new StopReason.IterationLimit(5), r.stopReason());
    assertEquals("ITERATION_LIMIT", r.stopReason().name());
    assertTrue(r.hitLimit());
    assertEquals(5, r.iterations());
    assertEquals(0, r.applied(0), "grow adds nodes but merges no classes");
    assertEquals(7, g.nodeCount());
  }

  @Test
  void reportsTheNodeLimitDuringTheIterationThatPassesIt() {
    EGraph<Void> g = graph();
    Arith.add(g, "a");
    RunReport r = run(g, List.of(DOUBLE), limits(100, 100, 1_000_000));
    assertEquals(new StopReason.NodeLimit(100), r.stopReason());
    assertTrue(r.hitLimit());
    assertEquals(7, r.iterations(), "2^6 = 64 nodes after six iterations; the seventh passes 100");
    assertEquals(101, g.nodeCount(), "the run stops at the first application past the limit");
    assertTrue(g.isClean());
  }

  @Test
  void aPassedDeadlineStopsBeforeTheFirstIteration() {
    EGraph<Void> g = graph();
    Arith.add(g, "(+ a b)");
    RunReport past =
        Runner.run(
            g,
            List.of(COMM),
            new Runner.Limits(10, 1000, System.nanoTime() - 1, 1000),
            () -> false);
    assertEquals(StopReason.TIME_LIMIT, past.stopReason());
    assertEquals(0, past.iterations());
    assertEquals(3, g.nodeCount(), "nothing applied");
  }

  @Test
  void aSearchPastItsDeadlineEndsTheRunWithTheTimeLimit() {
    EGraph<Void> g = graph();
    Arith.add(g, "(+ a b)");
    // a search that finds its deadline passed (as a pathological pattern would, mid-search)
    Rewrite<Void> slow =
        new Rewrite<>(
            "slow",
            (eg, deadline, sink) -> {
              throw new DeadlinePassed();
            },
            (eg, cls, b, unions) -> {});
    RunReport r = Runner.run(g, List.of(COMM, slow), limits(10, 1000, 1000), () -> false);
    assertEquals(StopReason.TIME_LIMIT, r.stopReason());
    assertEquals(1, r.iterations());
    assertTrue(g.isClean());
  }

  @Test
  void stopsAsSoonAsTheGoalIsReached() {
    EGraph<Void> g = graph();
    int ab = Arith.add(g, "(+ a b)");
    int ba = Arith.add(g, "(+ b a)");
    List<Integer> calls = new ArrayList<>();
    RunReport r =
        Runner.run(
            g,
            List.of(COMM, GROW),
            limits(30, 1000, 1000),
            () -> {
              calls.add(g.nodeCount());
              return g.find(ab) == g.find(ba);
            });
    assertEquals(StopReason.GOAL_REACHED, r.stopReason());
    assertFalse(r.hitLimit());
    assertEquals(1, r.iterations());
    assertEquals(2, calls.size(), "checked before the first iteration and before the second");
    RunReport again =
        Runner.run(g, List.of(COMM), limits(30, 1000, 1000), () -> g.find(ab) == g.find(ba));
    assertEquals(StopReason.GOAL_REACHED, again.stopReason());
    assertEquals(0, again.iterations());
  }

  @Test
  void aCappedRuleNeverPassesForSaturation() {
    EGraph<Void> g = graph();
    List<Integer> sums = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      sums.add(Arith.add(g, "(+ a" + i + " b" + i + ")"));
    }
    RunReport r = run(g, List.of(COMM), limits(30, 1000, 3));
    assertEquals(StopReason.SATURATED, r.stopReason());
    assertEquals(10, r.applied(0));
    for (int i = 0; i < 10; i++) {
      assertEquals(sums.get(i), Arith.add(g, "(+ b" + i + " a" + i + ")"), "sum " + i);
    }
  }

  @Test
  void aCappedRuleContinuesWhereTheCapCutItOff() {
    EGraph<Void> g = graph();
    for (int i = 0; i < 10; i++) {
      Arith.add(g, "a" + i);
    }
    // every symbol's class learns that it equals its square: one match per class
    Rewrite<Void> square =
        new Rewrite<>(
            "square",
            (eg, deadline, sink) -> {
              for (int c : eg.classesWithOp(Arith.VAR)) {
                if (!sink.match(c, null)) {
                  return;
                }
              }
            },
            (eg, cls, b, unions) -> unions.union(cls, eg.add(ENode.of(Arith.MUL, cls, cls))));
    RunReport r = run(g, List.of(square), limits(2, 1000, 3));
    assertEquals(new StopReason.IterationLimit(2), r.stopReason());
    assertEquals(6, r.applied(0), "three classes per iteration, none twice");
    RunReport rest = run(g, List.of(square), limits(30, 1000, 3));
    assertEquals(StopReason.SATURATED, rest.stopReason());
    assertEquals(4, rest.applied(0), "the four left, then nothing more");
  }

  @Test
  void countsApplicationsPerRuleInRuleOrder() {
    EGraph<Void> g = graph();
    Arith.add(g, "(+ a (* b c))");
    List<Rewrite<Void>> rules = Arith.<Void>rules().subList(0, 2);
    List<Rewrite<Void>> withNever = new ArrayList<>(rules);
    withNever.add(Arith.onNodes("never", Arith.ADD, (eg, x) -> -1));
    RunReport r = run(g, withNever, limits(30, 1000, 1000));
    assertEquals(List.of("comm-add", "comm-mul", "never"), r.names());
    assertArrayEquals(new int[] {1, 1, 0}, r.applied());
  }

  @Test
  void rejectsBadLimits() {
    assertThrows(IllegalArgumentException.class, () -> limits(0, 10, 10));
    assertThrows(IllegalArgumentException.class, () -> limits(10, -1, 10));
    assertThrows(IllegalArgumentException.class, () -> limits(10, 10, 0));
  }

  @Test
  void rebuildsADirtyGraphBeforeSearching() {
    EGraph<Void> g = graph();
    int fa = Arith.add(g, "(+ a c)");
    int fb = Arith.add(g, "(+ b c)");
    g.union(g.lookup(Arith.var("a")), g.lookup(Arith.var("b")));
    RunReport r = run(g, List.of(COMM), limits(30, 1000, 1000));
    assertEquals(StopReason.SATURATED, r.stopReason());
    assertEquals(g.find(fa), g.find(fb));
  }

  @Test
  void analysisConflictsSurfaceFromTheRun() {
    EGraph<Long> g = new EGraph<>(new Arith.ConstantFolding());
    Arith.add(g, "(+ 1 2)");
    Rewrite<Long> wrong = Arith.onNodes("wrong", Arith.ADD, (eg, x) -> x[0]);
    assertThrows(
        AnalysisConflict.class,
        () ->
            Runner.run(
                g, List.of(wrong), new Runner.Limits(10, 1000, Long.MAX_VALUE, 1000), () -> false));
  }

  @Test
  void arithmeticRulesProveDistributivityWithConstantFolding() {
    EGraph<Long> g = new EGraph<>(new Arith.ConstantFolding());
    int a = Arith.add(g, "(* x (+ y 0))");
    int b = Arith.add(g, "(* x y)");
    int c = Arith.add(g, "(* (+ 1 1) (+ z 1))");
    int d = Arith.add(g, "(+ (* 2 z) 2)");
    RunReport r =
        Runner.run(
            g,
            Arith.rules(),
            new Runner.Limits(8, 100_000, Long.MAX_VALUE, 10_000),
            () -> g.find(a) == g.find(b) && g.find(c) == g.find(d));
    assertEquals(StopReason.GOAL_REACHED, r.stopReason());
  }
}
