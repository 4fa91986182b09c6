package dev.entangle.egraph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Engine acceptance on the arithmetic language: one line per case, "start => goal". */
class ArithmeticTest {
  private static final Runner RUNNER =
      new Runner().withIterLimit(12).withNodeLimit(20_000).withTimeLimit(Duration.ofSeconds(10));

  @ParameterizedTest
  @ValueSource(
      strings = {
        "(+ a b) => (+ b a)",
        "(* a b) => (* b a)",
        "(+ (+ a b) c) => (+ a (+ b c))",
        "(+ (+ a b) c) => (+ c (+ b a))",
        "(* (* a b) c) => (* a (* b c))",
        "(* a (+ b c)) => (+ (* a b) (* a c))",
        "(+ (* a b) (* a c)) => (* a (+ b c))",
        "(+ (* a b) (* c a)) => (* (+ c b) a)",
        "(* (+ a b) (+ c d)) => (+ (+ (* a c) (* a d)) (+ (* b c) (* b d)))",
        "(+ a 0) => a",
        "(* (+ a 0) 1) => a",
        "(* (+ a b) 0) => 0",
        "(+ (* x 0) y) => y",
      })
  void proves(String line) {
    String[] parts = line.split("=>");
    assertTrue(prove(parts[0], parts[1]), line);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "(+ a b) =/=> (* a b)",
        "(+ a a) =/=> a",
        "(+ a b) =/=> (+ a c)",
        "(* a (+ b c)) =/=> (+ (* a b) c)",
        "(+ (* a b) c) =/=> (* a (+ b c))",
        "(* a a) =/=> (+ a a)",
        "(+ a 1) =/=> a",
      })
  void doesNotProve(String line) {
    String[] parts = line.split("=/=>");
    assertTrue(!prove(parts[0], parts[1]), line);
  }

  @Test
  void constantFoldingProvesArithmeticFacts() {
    EGraph<Long> g = new EGraph<>(new Arith.ConstantFolding());
    int start = Arith.add(g, "(+ (* 2 3) (* x 0))");
    assertEquals(null, g.data(start), "x * 0 is only known to be 0 after rewriting");
    RunReport r = RUNNER.run(g, Arith.rules(), () -> Long.valueOf(6).equals(g.data(start)));
    assertEquals(StopReason.GOAL_REACHED, r.stopReason());
    assertEquals(g.find(start), g.lookup(Arith.num(6)), "modify adds the constant to the class");
  }

  @Test
  void provedCaseStopsEarlyWithGoalReached() {
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int a = Arith.add(g, "(+ (+ a b) c)");
    int b = Arith.add(g, "(+ c (+ b a))");
    RunReport r = RUNNER.run(g, Arith.rules(), () -> g.find(a) == g.find(b));
    assertEquals(StopReason.GOAL_REACHED, r.stopReason());
    assertTrue(r.iterations() < RUNNER.iterLimit());
    assertTrue(r.applications().get("comm-add") > 0);
    assertEquals(0, r.applications().get("distribute"));
  }

  @Test
  void unprovedSmallCaseSaturatesWithoutMerging() {
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int a = Arith.add(g, "(+ a b)");
    int b = Arith.add(g, "(* a b)");
    RunReport r =
        RUNNER.run(
            g,
            List.of(
                Arith.rule("comm-add", "(+ ?a ?b)", "(+ ?b ?a)"),
                Arith.rule("comm-mul", "(* ?a ?b)", "(* ?b ?a)")),
            () -> g.find(a) == g.find(b));
    assertEquals(StopReason.SATURATED, r.stopReason());
    assertNotEquals(g.find(a), g.find(b));
  }

  private static boolean prove(String start, String goal) {
    EGraph<Long> g = new EGraph<>(new Arith.ConstantFolding());
    int s = Arith.add(g, start.trim());
    int t = Arith.add(g, goal.trim());
    RUNNER.run(g, Arith.rules(), () -> g.find(s) == g.find(t));
    return g.find(s) == g.find(t);
  }
}
