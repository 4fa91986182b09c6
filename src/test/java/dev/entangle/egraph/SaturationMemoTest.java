package dev.entangle.egraph;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The saturation memo: an e-graph built like an earlier one over other names is left exactly as a
 * run would leave it, and anything that tells the two apart (structure, a literal, a fact of a
 * named leaf, the limits) makes it run instead.
 */
class SaturationMemoTest {
  private static final Runner.Limits LIMITS = new Runner.Limits(6, 100_000, Long.MAX_VALUE, 10_000);

  /** Symbols name values: {@code var}'s attribute is journaled as a name. */
  private static Journal journal() {
    return new Journal(Arith.VAR);
  }

  private static EGraph<Long> graph(String... terms) {
    EGraph<Long> g = new EGraph<>(new Arith.ConstantFolding());
    g.keepJournal(journal());
    for (String t : terms) {
      Arith.add(g, t);
    }
    return g;
  }

  private static SaturationMemo<Long> memo() {
    return new SaturationMemo<>(Arith.rules(), 1_000_000);
  }

  /** What a plain run leaves: the dump, and the report's stop reason and counts. */
  private static String ranAlone(String... terms) {
    EGraph<Long> g = graph(terms);
    RunReport r = Runner.run(g, Arith.rules(), LIMITS, () -> false);
    return g.dump(Arith::opName) + r.stopReason() + Arrays.toString(r.applied());
  }

  private static String state(EGraph<Long> g, RunReport r) {
    return g.dump(Arith::opName) + r.stopReason() + Arrays.toString(r.applied());
  }

  @Test
  void aGraphBuiltAlikeOverOtherNamesIsReplayedExactly() {
    SaturationMemo<Long> memo = memo();
    EGraph<Long> first = graph("(* (+ x (* 2 y)) (+ z 0))");
    RunReport r1 = memo.run(first, LIMITS);
    EGraph<Long> second = graph("(* (+ p (* 2 q)) (+ r 0))");
    RunReport r2 = memo.run(second, LIMITS);
    assertArrayEquals(new long[] {1, 1}, memo.counts());
    assertEquals(ranAlone("(* (+ x (* 2 y)) (+ z 0))"), state(first, r1));
    assertEquals(ranAlone("(* (+ p (* 2 q)) (+ r 0))"), state(second, r2));
    assertTrue(second.lookup(Arith.var("q")) >= 0);
    assertEquals(-1, second.lookup(Arith.var("y")));
  }

  @Test
  void aReplayedGraphGoesOnLikeARunOne() {
    SaturationMemo<Long> memo = memo();
    for (String[] names : new String[][] {{"x", "y"}, {"a", "b"}}) {
      EGraph<Long> g = graph("(+ " + names[0] + " (* 1 " + names[1] + "))");
      memo.run(g, LIMITS);
      Arith.add(g, "(* (+ " + names[1] + " 0) 3)");
      RunReport r = memo.run(g, LIMITS);
      EGraph<Long> alone = graph("(+ " + names[0] + " (* 1 " + names[1] + "))");
      Runner.run(alone, Arith.rules(), LIMITS, () -> false);
      Arith.add(alone, "(* (+ " + names[1] + " 0) 3)");
      RunReport ra = Runner.run(alone, Arith.rules(), LIMITS, () -> false);
      assertEquals(state(alone, ra), state(g, r));
    }
    assertArrayEquals(new long[] {2, 2}, memo.counts());
  }

  @Test
  void namesAreNumberedByFirstAppearanceSoSharingMatters() {
    SaturationMemo<Long> memo = memo();
    memo.run(graph("(+ x (* x y))"), LIMITS);
    memo.run(graph("(+ p (* q r))"), LIMITS);
    memo.run(graph("(+ p (* p q))"), LIMITS);
    assertArrayEquals(new long[] {1, 2}, memo.counts());
  }

  @Test
  void anotherLiteralOrShapeRunsAfresh() {
    SaturationMemo<Long> memo = memo();
    memo.run(graph("(* (+ x 0) 2)"), LIMITS);
    memo.run(graph("(* (+ x 0) 3)"), LIMITS);
    memo.run(graph("(+ (* x 0) 2)"), LIMITS);
    assertArrayEquals(new long[] {0, 3}, memo.counts());
  }

  @Test
  void aNamedLeafOfAnotherFactRunsAfresh() {
    Map<Long, Long> facts = Map.of((long) "x".hashCode(), 7L, (long) "y".hashCode(), 8L);
    Arith.ConstantFolding folding = new Arith.ConstantFolding();
    Analysis<Long> known =
        new Analysis<>() {
          @Override
          public Long make(EGraph<Long> g, ENode n) {
            return n.op() == Arith.VAR ? facts.get(n.attr(0)) : folding.make(g, n);
          }

          @Override
          public Long merge(Long a, Long b) {
            return folding.merge(a, b);
          }

          @Override
          public void modify(EGraph<Long> g, int classId) {
            folding.modify(g, classId);
          }
        };
    SaturationMemo<Long> memo = memo();
    for (String name : new String[] {"x", "y", "x"}) {
      EGraph<Long> g = new EGraph<>(known);
      g.keepJournal(journal());
      Arith.add(g, "(+ " + name + " 1)");
      memo.run(g, LIMITS);
      assertTrue(Arith.holds(g, g.lookup(Arith.var(name)), facts.get((long) name.hashCode())));
    }
    assertArrayEquals(new long[] {1, 2}, memo.counts());
  }

  @Test
  void otherLimitsRunAfresh() {
    SaturationMemo<Long> memo = memo();
    memo.run(graph("(* (+ x 0) y)"), LIMITS);
    memo.run(graph("(* (+ x 0) y)"), new Runner.Limits(1, 100_000, Long.MAX_VALUE, 10_000));
    assertArrayEquals(new long[] {0, 2}, memo.counts());
  }

  @Test
  void aRunStoppedByTheDeadlineIsNotRemembered() {
    SaturationMemo<Long> memo = memo();
    Runner.Limits past = new Runner.Limits(6, 100_000, System.nanoTime() - 1, 10_000);
    assertEquals(StopReason.TIME_LIMIT, memo.run(graph("(* (+ x 0) y)"), past).stopReason());
    memo.run(graph("(* (+ x 0) y)"), past);
    assertArrayEquals(new long[] {0, 2}, memo.counts());
  }

  @Test
  void pastTheDeadlineARememberedRunIsNotReplayed() {
    SaturationMemo<Long> memo = memo();
    memo.run(graph("(* (+ x 0) y)"), LIMITS);
    Runner.Limits past = new Runner.Limits(6, 100_000, System.nanoTime() - 1, 10_000);
    assertEquals(StopReason.TIME_LIMIT, memo.run(graph("(* (+ x 0) y)"), past).stopReason());
    assertArrayEquals(new long[] {0, 2}, memo.counts());
  }

  @Test
  void aRunLargerThanTheBudgetIsNotKeptAndDropsNothing() {
    SaturationMemo<Long> memo = new SaturationMemo<>(Arith.rules(), 200);
    memo.run(graph("(+ x 0)"), LIMITS);
    memo.run(graph("(* (+ (* x (+ y 2)) (* 2 y)) (+ (* z (+ x 0)) (* 3 y)))"), LIMITS);
    memo.run(graph("(* (+ (* x (+ y 2)) (* 2 y)) (+ (* z (+ x 0)) (* 3 y)))"), LIMITS);
    memo.run(graph("(+ p 0)"), LIMITS);
    assertArrayEquals(new long[] {1, 3}, memo.counts());
  }

  @Test
  void theBudgetDropsTheLeastRecentlyUsedRuns() {
    SaturationMemo<Long> memo = new SaturationMemo<>(Arith.rules(), 200);
    memo.run(graph("(+ x 0)"), LIMITS);
    memo.run(graph("(* x 1)"), LIMITS);
    memo.run(graph("(+ p 0)"), LIMITS);
    memo.run(graph("(* y 2)"), LIMITS);
    memo.run(graph("(* y 3)"), LIMITS);
    memo.run(graph("(* y 4)"), LIMITS);
    memo.run(graph("(* y 5)"), LIMITS);
    memo.run(graph("(* q 1)"), LIMITS);
    memo.run(graph("(+ q 0)"), LIMITS);
    assertArrayEquals(new long[] {1, 8}, memo.counts());
  }

  @Test
  void aGraphWithoutAJournalIsAPlainRun() {
    SaturationMemo<Long> memo = memo();
    for (int i = 0; i < 2; i++) {
      EGraph<Long> g = new EGraph<>(new Arith.ConstantFolding());
      Arith.add(g, "(* (+ x 0) y)");
      memo.run(g, LIMITS);
    }
    assertArrayEquals(new long[] {0, 2}, memo.counts());
  }

  @Test
  void aJournalIsKeptFromAnEmptyGraphOnly() {
    EGraph<Long> g = new EGraph<>(new Arith.ConstantFolding());
    Arith.add(g, "x");
    assertThrows(IllegalStateException.class, () -> g.keepJournal(journal()));
    EGraph<Long> h = graph();
    assertThrows(IllegalStateException.class, () -> h.keepJournal(journal()));
  }

  @Test
  void onlyChangesAreJournaled() {
    EGraph<Long> g = graph("(+ x y)");
    int length = g.journal().length();
    Arith.add(g, "(+ x y)");
    g.union(g.lookup(Arith.var("x")), g.lookup(Arith.var("x")));
    g.rebuild();
    g.takeTouched();
    int afterTake = g.journal().length();
    g.takeTouched();
    assertEquals(afterTake, g.journal().length());
    assertEquals(length + 1, afterTake);
  }
}
