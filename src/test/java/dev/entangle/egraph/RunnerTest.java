package dev.entangle.egraph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RunnerTest {
  private static final Rewrite COMM = Arith.rule("comm-add", "(+ ?a ?b)", "(+ ?b ?a)");

  /** f(x) for the class of every f-node: one new node per iteration, forever. */
  private static final Rewrite GROW =
      new Rewrite(
          "grow",
          Pattern.node(Arith.MUL, Pattern.var("x"), Pattern.var("y")),
          (g, m, unions) -> g.add(ENode.of(Arith.MUL, m.classId(), m.classId())));

  /** Adds a fresh symbol for every class: the graph doubles each iteration. */
  private static final Rewrite DOUBLE =
      new Rewrite(
          "double",
          Pattern.var("x"),
          (g, m, unions) -> g.add(ENode.leaf(Arith.VAR, -g.nodeCount())));

  private static EGraph<Void> graph() {
    return new EGraph<>(Analysis.none());
  }

  @Test
  void saturatesWhenAnIterationChangesNothing() {
    EGraph<Void> g = graph();
    int ab = Arith.add(g, "(+ a b)");
    RunReport r = new Runner().run(g, List.of(COMM));
    assertEquals(StopReason.SATURATED, r.stopReason());
    assertTrue(r.saturated());
    assertFalse(r.hitLimit());
    assertEquals(2, r.iterations(), "one to add b + a, one to see nothing change");
    assertEquals(1, r.applications().get("comm-add"));
    assertEquals(4, r.nodeCount());
    assertEquals(3, r.classCount());
    assertEquals(ab, Arith.add(g, "(+ b a)"));
    assertTrue(g.isClean());
  }

  @Test
  void reportsTheIterationLimit() {
    EGraph<Void> g = graph();
    Arith.add(g, "(* a a)");
    RunReport r = new Runner().withIterLimit(5).run(g, List.of(GROW));
    assertEquals(StopReason.ITERATION_LIMIT, r.stopReason());
    assertTrue(r.hitLimit());
    assertEquals(5, r.iterations());
    assertEquals(5, r.applications().get("grow"));
    assertEquals(7, r.nodeCount());
  }

  @Test
  void reportsTheNodeLimit() {
    EGraph<Void> g = graph();
    Arith.add(g, "a");
    RunReport r = new Runner().withNodeLimit(100).run(g, List.of(DOUBLE));
    assertEquals(StopReason.NODE_LIMIT, r.stopReason());
    assertEquals(7, r.iterations(), "2^7 > 100 nodes during the 7th iteration");
    assertEquals(128, r.nodeCount());
  }

  @Test
  void reportsTheTimeLimit() {
    EGraph<Void> g = graph();
    Arith.add(g, "(* a a)");
    Condition slow =
        (eg, m) -> {
          sleep(20);
          return true;
        };
    Rewrite slowGrow = new Rewrite("slow-grow", GROW.lhs(), slow, GROW.applier());
    RunReport r =
        new Runner()
            .withIterLimit(1000)
            .withTimeLimit(Duration.ofMillis(100))
            .run(g, List.of(slowGrow));
    assertEquals(StopReason.TIME_LIMIT, r.stopReason());
    assertTrue(r.elapsed().toMillis() >= 100, r.toString());
    assertTrue(r.iterations() >= 1 && r.iterations() < 1000, r.toString());
  }

  @Test
  void aPassedDeadlineOrZeroTimeStopsBeforeTheFirstIteration() {
    EGraph<Void> g = graph();
    Arith.add(g, "(+ a b)");
    RunReport zero = new Runner().withTimeLimit(Duration.ZERO).run(g, List.of(COMM));
    assertEquals(StopReason.TIME_LIMIT, zero.stopReason());
    assertEquals(0, zero.iterations());
    RunReport past = new Runner().withDeadline(System.nanoTime() - 1).run(g, List.of(COMM));
    assertEquals(StopReason.TIME_LIMIT, past.stopReason());
    assertEquals(3, g.nodeCount(), "nothing applied");
  }

  @Test
  void stopsAsSoonAsTheGoalIsReached() {
    EGraph<Void> g = graph();
    int ab = Arith.add(g, "(+ a b)");
    int ba = Arith.add(g, "(+ b a)");
    List<Integer> calls = new ArrayList<>();
    RunReport r =
        new Runner()
            .run(
                g,
                List.of(COMM, GROW),
                () -> {
                  calls.add(g.nodeCount());
                  return g.find(ab) == g.find(ba);
                });
    assertEquals(StopReason.GOAL_REACHED, r.stopReason());
    assertFalse(r.hitLimit());
    assertEquals(1, r.iterations());
    assertEquals(2, calls.size(), "checked before the first iteration and after it");
    RunReport again = new Runner().run(g, List.of(COMM), () -> g.find(ab) == g.find(ba));
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
    RunReport r = new Runner().withMatchLimit(3).run(g, List.of(COMM));
    assertEquals(StopReason.SATURATED, r.stopReason());
    assertEquals(10, r.applications().get("comm-add"));
    for (int i = 0; i < 10; i++) {
      assertEquals(sums.get(i), Arith.add(g, "(+ b" + i + " a" + i + ")"), "sum " + i);
    }
  }

  @Test
  void aCappedRuleAtTheIterationLimitIsReportedAsTheLimit() {
    EGraph<Void> g = graph();
    for (int i = 0; i < 10; i++) {
      Arith.add(g, "(+ a" + i + " b" + i + ")");
    }
    RunReport r = new Runner().withMatchLimit(1).withIterLimit(3).run(g, List.of(COMM));
    assertEquals(StopReason.ITERATION_LIMIT, r.stopReason());
    assertNotEquals(10, r.applications().get("comm-add"));
  }

  @Test
  void countsApplicationsPerRuleInRuleOrder() {
    EGraph<Void> g = graph();
    Arith.add(g, "(+ a (* b c))");
    List<Rewrite> rules =
        List.of(
            Arith.rule("comm-mul", "(* ?a ?b)", "(* ?b ?a)"),
            COMM,
            Arith.rule("never", "(+ ?a 0)", "?a"));
    RunReport r = new Runner().run(g, rules);
    assertEquals(List.of("comm-mul", "comm-add", "never"), List.copyOf(r.applications().keySet()));
    assertEquals(1, r.applications().get("comm-mul"));
    assertEquals(1, r.applications().get("comm-add"));
    assertEquals(0, r.applications().get("never"));
  }

  @Test
  void rejectsDuplicateRuleNamesAndBadLimits() {
    EGraph<Void> g = graph();
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> new Runner().run(g, List.of(COMM, COMM)));
    assertTrue(e.getMessage().contains("comm-add"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new Runner().withIterLimit(0));
    assertThrows(IllegalArgumentException.class, () -> new Runner().withNodeLimit(-1));
    assertThrows(IllegalArgumentException.class, () -> new Runner().withMatchLimit(0));
    assertThrows(
        IllegalArgumentException.class, () -> new Runner().withTimeLimit(Duration.ofSeconds(-1)));
  }

  @Test
  void rebuildsADirtyGraphBeforeSearching() {
    EGraph<Void> g = graph();
    int fa = Arith.add(g, "(+ a c)");
    int fb = Arith.add(g, "(+ b c)");
    g.union(g.lookup(Arith.var("a")), g.lookup(Arith.var("b")));
    RunReport r = new Runner().run(g, List.of(COMM));
    assertEquals(StopReason.SATURATED, r.stopReason());
    assertEquals(g.find(fa), g.find(fb));
  }

  @Test
  void analysisConflictsSurfaceFromTheRun() {
    EGraph<Long> g = new EGraph<>(new Arith.ConstantFolding());
    Arith.add(g, "(+ 1 2)");
    Rewrite wrong = Arith.rule("wrong", "(+ ?a ?b)", "?a");
    assertThrows(AnalysisConflict.class, () -> new Runner().run(g, List.of(wrong)));
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
