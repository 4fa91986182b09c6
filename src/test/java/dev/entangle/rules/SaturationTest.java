package dev.entangle.rules;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.core.Op;
import dev.entangle.egraph.ENode;
import dev.entangle.egraph.RunReport;
import dev.entangle.egraph.Runner;
import dev.entangle.egraph.StopReason;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Runs of a library: why they stop, what each lemma did, and lemmas that only look up. */
class SaturationTest {
  /** exp(x) = exp(relu(x)) over and over: one new class per iteration, forever. */
  private static final String GROW = "(rule grow (exp ?x) (exp (relu ?x)))";

  private static Runner.Limits limits(int iterations, int nodes) {
    return new Runner.Limits(iterations, nodes, System.nanoTime() + 5_000_000_000L, 1_000);
  }

  @Test
  void aRunThatChangesNothingMoreIsSaturated() {
    RuleFixture f = new RuleFixture("(rule neg-neg (neg (neg ?x)) ?x)");
    int nn = f.add("(neg (neg a:f32[2]))");
    RunReport r = Runner.run(f.graph(), f.lemmas.rewrites(), limits(10, 1000), () -> false);
    assertEquals(StopReason.SATURATED, r.stopReason());
    assertEquals(2, r.iterations(), "one to rewrite, one to see nothing change");
    assertArrayEquals(new int[] {1}, r.applied());
    assertEquals(f.graph().find(nn), f.graph().find(f.terms.leaf("a")));
  }

  @Test
  void aGrowingRunStopsAtTheIterationLimit() {
    RuleFixture f = new RuleFixture(GROW);
    f.add("(exp a:f32[2])");
    RunReport r = Runner.run(f.graph(), f.lemmas.rewrites(), limits(4, 1000), () -> false);
    assertEquals(new StopReason.IterationLimit(4), r.stopReason());
    assertEquals(4, r.iterations());
    assertArrayEquals(new int[] {4}, r.applied());
    assertEquals(2 + 2 * 4, f.graph().nodeCount(), "each iteration adds a relu and an exp");
  }

  @Test
  void aGrowingRunStopsAtTheNodeLimit() {
    RuleFixture f = new RuleFixture(GROW);
    f.add("(exp a:f32[2])");
    RunReport r = Runner.run(f.graph(), f.lemmas.rewrites(), limits(100, 7), () -> false);
    assertEquals(new StopReason.NodeLimit(7), r.stopReason());
    assertEquals(3, r.iterations(), "8 nodes after the third iteration");
    assertTrue(f.graph().isClean(), "the e-graph is rebuilt before the run returns");
  }

  @Test
  void aRunPastItsDeadlineStopsAtTheTimeLimit() {
    RuleFixture f = new RuleFixture(GROW);
    f.add("(exp a:f32[2])");
    Runner.Limits past = new Runner.Limits(100, 1000, System.nanoTime() - 1, 1_000);
    RunReport r = Runner.run(f.graph(), f.lemmas.rewrites(), past, () -> false);
    assertEquals(StopReason.TIME_LIMIT, r.stopReason());
    assertEquals(0, r.iterations());
    assertArrayEquals(new int[] {0}, r.applied());
  }

  @Test
  void aRunStopsOnceTheGoalHolds() {
    RuleFixture f = new RuleFixture(GROW + "\n(rule neg-neg (neg (neg ?x)) ?x)");
    int nn = f.add("(neg (neg a:f32[2]))");
    f.add("(exp a)");
    int a = f.terms.leaf("a");
    RunReport r =
        Runner.run(
            f.graph(),
            f.lemmas.rewrites(),
            limits(100, 1000),
            () -> f.graph().find(nn) == f.graph().find(a));
    assertEquals(StopReason.GOAL_REACHED, r.stopReason());
    assertEquals(1, r.iterations());
  }

  @Test
  void aRunHeldBackByTheMatchCapIsSaturatedOnlyOnceEveryMatchIsApplied() {
    RuleFixture f = new RuleFixture("(rule neg-relu (neg ?x) (relu ?x))");
    f.add("(neg a:f32[2])");
    f.add("(neg b:f32[2])");
    Runner.Limits capped = new Runner.Limits(1, 1000, System.nanoTime() + 5_000_000_000L, 1);
    RunReport r = Runner.run(f.graph(), f.lemmas.rewrites(), capped, () -> false);
    assertNotEquals(
        StopReason.SATURATED, r.stopReason(), "one iteration with a cap of one cannot apply both");
    assertEquals(1, r.applied()[0]);
  }

  /**
   * Bug: the match cap keeps the first {@code matchesPerRule} matches of a rule in every iteration,
   * in the same deterministic order, so once those are applied the same ones are taken again and
   * the matches past the cap are never applied: the run can only end at a limit. Expected: every
   * match is applied in some iteration (egg bans a rule that exceeds its cap for a few iterations
   * and raises the cap), so here both negations gain their relu and the run saturates. Actual: only
   * {@code (neg a)} is ever rewritten and the run stops at the iteration limit.
   */
  @Test
  void matchesPastTheCapAreAppliedInLaterIterations() {
    RuleFixture f = new RuleFixture("(rule neg-relu (neg ?x) (relu ?x))");
    int na = f.add("(neg a:f32[2])");
    int nb = f.add("(neg b:f32[2])");
    Runner.Limits capped = new Runner.Limits(100, 1000, System.nanoTime() + 5_000_000_000L, 1);
    RunReport r = Runner.run(f.graph(), f.lemmas.rewrites(), capped, () -> false);
    assertEquals(f.graph().find(nb), f.graph().find(f.add("(relu b)")));
    assertEquals(f.graph().find(na), f.graph().find(f.add("(relu a)")));
    assertEquals(StopReason.SATURATED, r.stopReason());
    assertArrayEquals(new int[] {2}, r.applied());
  }

  @Test
  void firedCountsFollowTheOrderOfLemmaNames() {
    Map<String, String> sources = new LinkedHashMap<>();
    sources.put("a.lemmas", "(native slice-tiling)\n(rule neg-neg (neg (neg ?x)) ?x)\n");
    sources.put(
        "b.lemmas", "(rule never (sigmoid ?x) ?x)\n(rule relu-relu (relu (relu ?x)) (relu ?x))\n");
    Lemmas lemmas = LemmaLibrary.parse(sources);
    Lemmas s = lemmas;
    assertEquals(List.of("neg-neg", "never", "relu-relu", "slice-tiling"), lemmas.names());
    assertEquals(lemmas.names(), s.names());

    TermReader t = new TermReader();
    t.add("(neg (neg a:f32[4,2]))");
    t.add("(neg (neg b:f32[4,2]))");
    t.add("(relu (relu a))");
    t.add("(concat[0] (slice[0 0 1 1] a) (slice[0 1 4 1] a))");
    RunReport r = Runner.run(t.graph(), s.rewrites(), limits(10, 1000), () -> false);
    assertEquals(StopReason.SATURATED, r.stopReason());
    assertArrayEquals(new int[] {2, 0, 1, 1}, r.applied());
  }

  @Test
  void aLemmaThatFindsNothingNewDoesNotCount() {
    RuleFixture f =
        new RuleFixture("(rule neg-neg (neg (neg ?x)) ?x)\n(rule neg-neg-again (neg (neg ?x)) ?x)");
    f.add("(neg (neg a:f32[2]))");
    RunReport r = Runner.run(f.graph(), f.lemmas.rewrites(), limits(10, 1000), () -> false);
    assertArrayEquals(
        new int[] {1, 0}, r.applied(), "the second rule finds the classes already equal");
  }

  @Test
  void anIfExistsRuleNeverAddsNodes() {
    RuleFixture f =
        new RuleFixture(
            "(rule slice-exp (slice[?d ?s ?e ?k] (exp ?x)) (exp (slice[?d ?s ?e ?k] ?x)) :if-exists)");
    int lhs = f.add("(slice[0 0 1 1] (exp a:f32[2,3]))");
    int nodes = f.graph().nodeCount();
    RunReport r = Runner.run(f.graph(), f.lemmas.rewrites(), limits(10, 1000), () -> false);
    assertEquals(StopReason.SATURATED, r.stopReason());
    assertArrayEquals(new int[] {0}, r.applied());
    assertEquals(nodes, f.graph().nodeCount());
    assertEquals(
        -1,
        f.graph()
            .lookup(
                new ENode(Op.SLICE.id(), new long[] {0, 0, 1, 1}, new int[] {f.terms.leaf("a")})));
  }

  @Test
  void anIfExistsRuleUnionsWithARightSideAlreadyThere() {
    RuleFixture f =
        new RuleFixture(
            "(rule slice-exp (slice[?d ?s ?e ?k] (exp ?x)) (exp (slice[?d ?s ?e ?k] ?x)) :if-exists)");
    int lhs = f.add("(slice[0 0 1 1] (exp a:f32[2,3]))");
    int other = f.add("(slice[0 1 2 1] (exp a))");
    int rhs = f.add("(exp (slice[0 0 1 1] a))");
    int nodes = f.graph().nodeCount();
    RunReport r = Runner.run(f.graph(), f.lemmas.rewrites(), limits(10, 1000), () -> false);
    assertArrayEquals(new int[] {1}, r.applied());
    assertEquals(f.graph().find(lhs), f.graph().find(rhs));
    assertNotEquals(f.graph().find(lhs), f.graph().find(other));
    assertEquals(nodes, f.graph().nodeCount(), "the slice of a at 1:2 is not built");
  }

  @Test
  @org.junit.jupiter.api.Timeout(60)
  void aSearchWithTooManyCombinationsStopsAtTheDeadline() {
    // four children of 150 equal negations each: 150^4 ways to match the pattern, far more than
    // can be enumerated before the deadline
    RuleFixture f = new RuleFixture("(rule many (sumn (neg ?a) (neg ?b) (neg ?c) (neg ?d)) ?a)");
    int first = f.add("(neg x0:f32[2])");
    for (int i = 1; i < 150; i++) {
      f.graph().union(first, f.add("(neg x" + i + ":f32[2])"));
    }
    f.graph().rebuild();
    f.add("(sumn (neg x0) (neg x1) (neg x2) (neg x3))");
    Runner.Limits soon =
        new Runner.Limits(10, 1_000_000, System.nanoTime() + 200_000_000L, 1_000_000_000);
    RunReport r = Runner.run(f.graph(), f.lemmas.rewrites(), soon, () -> false);
    assertEquals(StopReason.TIME_LIMIT, r.stopReason());
  }

  @Test
  void anIfPartsExistRuleBuildsOnlyTheRootOverPartsAlreadyThere() {
    RuleFixture f =
        new RuleFixture(
            "(rule split (matmul (concat[0] ?as...) ?b) (concat[0] (matmul ?as ?b)...) :if-parts-exist)");
    int lhs = f.add("(matmul (concat[0] a:f32[2,3] c:f32[1,3]) w:f32[3,4])");
    int nodes = f.graph().nodeCount();
    assertEquals(-1, f.applyFirst("split", lhs), "neither block product is there");
    f.add("(matmul a w)");
    assertEquals(-1, f.applyFirst("split", lhs), "the block product of c is not there");
    assertEquals(nodes + 1, f.graph().nodeCount(), "only the product added by the test");
    int second = f.add("(matmul c w)");
    int concat = f.applyFirst("split", lhs);
    assertEquals(nodes + 3, f.graph().nodeCount(), "the concat of the two products is built");
    f.graph().union(lhs, concat);
    f.graph().rebuild();
    assertEquals(
        f.graph().find(lhs), f.graph().find(f.add("(concat[0] (matmul a w) (matmul c w))")));
    assertNotEquals(f.graph().find(lhs), f.graph().find(second));
  }

  @Test
  void anIfExistsRuleLooksUpNestedRightSidesWithoutBuildingTheirParts() {
    RuleFixture f =
        new RuleFixture("(rule lookup (neg (exp ?x)) (exp (neg (relu ?x))) :if-exists)");
    int lhs = f.add("(neg (exp a:f32[2]))");
    f.add("(neg (relu a))");
    int nodes = f.graph().nodeCount();
    assertEquals(-1, f.applyFirst("lookup", lhs), "exp of neg of relu of a is not there");
    assertEquals(nodes, f.graph().nodeCount());
    int rhs = f.add("(exp (neg (relu a)))");
    assertEquals(f.graph().find(rhs), f.applyFirst("lookup", lhs));
  }
}
