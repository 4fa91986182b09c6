package dev.entangle.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.AnalysisConflict;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.RunReport;
import dev.entangle.egraph.Runner;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The runner's incremental search (only where the e-graph changed) grows exactly the e-graph the
 * whole-graph search grows, with the shipped lemmas: on every lemma case and on random terms, after
 * the same number of iterations, the same nodes, classes, equalities and stop reason, also when a
 * run cut short by its iteration limit is followed by another.
 */
class IncrementalSearchTest {
  private static final int RANDOM_GRAPHS = 40;

  @TestFactory
  Stream<DynamicTest> lemmaCasesGrowTheSameGraph() {
    return ShippedLemmas.CASES.stream()
        .map(
            c ->
                DynamicTest.dynamicTest(
                    c.where() + " " + c,
                    () -> {
                      ShippedLemmas.Sides full = ShippedLemmas.build(c);
                      ShippedLemmas.Sides incremental = ShippedLemmas.build(c);
                      same(full.terms(), incremental.terms(), c.toString(), 12);
                      assertEquals(full.equal(), incremental.equal(), c.toString());
                    }));
  }

  @TestFactory
  Stream<DynamicTest> randomTermsGrowTheSameGraph() {
    return IntStream.range(0, RANDOM_GRAPHS)
        .mapToObj(
            seed ->
                DynamicTest.dynamicTest(
                    "seed " + seed,
                    () -> {
                      Supplier<TermReader> terms = () -> random(seed);
                      same(terms.get(), terms.get(), "seed " + seed, 6);
                      same(terms.get(), terms.get(), "seed " + seed + " in two runs", 2, 4);
                    }));
  }

  /** Three random terms of depth 3 in one e-graph (the same for the same seed). */
  private static TermReader random(int seed) {
    RandomTerms gen = new RandomTerms(seed);
    TermReader t = new TermReader();
    for (int i = 0; i < 3; i++) {
      t.add(gen.term(3));
    }
    return t;
  }

  /**
   * Runs both graphs, one run per iteration budget (a run cut short by its budget leaves the rest
   * of the work to the next), and compares them after each.
   */
  private static void same(
      TermReader full, TermReader incremental, String what, int... iterations) {
    for (int budget : iterations) {
      String a = run(full.graph(), false, budget);
      String b = run(incremental.graph(), true, budget);
      assertEquals(a, b, what);
    }
  }

  /** Runs the shipped lemmas and describes the result: stop reason, sizes, roots' classes. */
  private static String run(EGraph<TypeInfo> g, boolean incremental, int iterations) {
    int roots = g.classCount();
    List<Integer> before = new ArrayList<>();
    for (int c : g.classIds()) {
      before.add(c);
    }
    RunReport r;
    try {
      r =
          Runner.run(
              g,
              ShippedLemmas.LEMMAS.rewrites(),
              ShippedLemmas.limits(iterations),
              () -> false,
              incremental);
    } catch (AnalysisConflict e) {
      return "conflict";
    }
    StringBuilder sb = new StringBuilder();
    sb.append(r.stopReason())
        .append(' ')
        .append(g.nodeCount())
        .append(" nodes ")
        .append(g.classCount())
        .append(" classes; of the first ")
        .append(roots)
        .append(", each equal to:");
    for (int c : before) {
      int first = 0;
      while (g.find(before.get(first)) != g.find(c)) {
        first++;
      }
      sb.append(' ').append(first);
    }
    return sb.toString();
  }
}
