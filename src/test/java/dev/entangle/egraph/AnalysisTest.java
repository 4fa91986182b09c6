package dev.entangle.egraph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Facts per class through add, union, rebuild and the modify hook (constant folding). */
class AnalysisTest {
  private static EGraph<Long> graph() {
    return new EGraph<>(new Arith.ConstantFolding());
  }

  @Test
  void makeComputesFactsFromChildren() {
    EGraph<Long> g = graph();
    int sum = Arith.add(g, "(+ 2 (* 3 4))");
    assertEquals(14L, g.data(sum));
    assertNull(g.data(Arith.add(g, "(+ x 1)")));
  }

  @Test
  void modifyAddsTheConstantToTheClass() {
    EGraph<Long> g = graph();
    int sum = Arith.add(g, "(+ 2 3)");
    g.rebuild();
    assertEquals(sum, g.lookup(Arith.num(5)));
    assertEquals(2, g.nodes(sum).size(), "(+ 2 3) and 5");
  }

  @Test
  void unionMergesFactsAndRepairsParentsUpward() {
    EGraph<Long> g = graph();
    int x = g.add(Arith.var("x"));
    int y = g.add(Arith.var("y"));
    int top = Arith.add(g, "(* (+ x 1) (+ y 1))");
    assertNull(g.data(top));
    g.union(x, g.add(Arith.num(2)));
    assertEquals(2L, g.data(x));
    g.rebuild();
    assertNull(g.data(top), "y is still unknown");
    g.union(y, g.add(Arith.num(4)));
    g.rebuild();
    assertEquals(15L, g.data(top));
    assertEquals(g.find(top), g.lookup(Arith.num(15)));
    EGraphTest.assertInvariants(g);
  }

  @Test
  void conflictingFactsRefuseTheUnionAndLeaveTheGraphUnchanged() {
    EGraph<Long> g = graph();
    int two = g.add(Arith.num(2));
    int three = g.add(Arith.num(3));
    String before = g.dump(Arith::opName);
    AnalysisConflict e = assertThrows(AnalysisConflict.class, () -> g.union(two, three));
    assertTrue(e.getMessage().contains("2") && e.getMessage().contains("3"), e.getMessage());
    assertNotEquals(g.find(two), g.find(three));
    assertTrue(g.isClean());
    assertEquals(before, g.dump(Arith::opName));
  }

  @Test
  void conflictFoundDuringRebuildIsReported() {
    EGraph<Long> g = graph();
    int x = g.add(Arith.var("x"));
    int y = g.add(Arith.var("y"));
    int px = Arith.add(g, "(+ x 1)");
    g.union(x, g.add(Arith.num(1))); // x + 1 = 2
    g.rebuild();
    assertEquals(2L, g.data(px));
    int py = Arith.add(g, "(+ y 1)");
    g.union(py, g.add(Arith.num(7))); // y + 1 = 7
    g.rebuild();
    g.union(x, y); // then 2 = x + 1 = y + 1 = 7: congruence finds the contradiction
    assertThrows(AnalysisConflict.class, g::rebuild);
  }

  @Test
  void noAnalysisHasNullFacts() {
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int a = g.add(Arith.num(1));
    int b = g.add(Arith.num(2));
    g.union(a, b);
    g.rebuild();
    assertNull(g.data(a));
  }
}
