package dev.entangle.egraph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class ExtractorTest {
  private static final int LEAF = 0;
  private static final int F = 1;
  private static final int G = 2;
  private static final int BAD = 3;
  private static final String[] NAMES = {"leaf", "f", "g", "bad"};

  private static String show(Term t) {
    return t == null ? null : t.render(op -> NAMES[op]);
  }

  @Test
  void picksTheCheapestTerm() {
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int a = g.add(ENode.leaf(LEAF, 1));
    int b = g.add(ENode.leaf(LEAF, 2));
    int big = g.add(ENode.of(G, g.add(ENode.of(G, a, a)), b));
    int small = g.add(ENode.of(F, b));
    g.union(big, small);
    g.rebuild();
    Extractor e = new Extractor(g, CostModel.astSize());
    assertEquals("(f (leaf[2]))", show(e.extract(big)));
    assertEquals(2, e.cost(big));
    // with g cheap and f expensive, the other term wins
    Extractor e2 = new Extractor(g, n -> n.op() == F ? 10 : 1);
    assertEquals("(g (g (leaf[1]) (leaf[1])) (leaf[2]))", show(e2.extract(big)));
    assertEquals(5, e2.cost(big));
  }

  @Test
  void disallowedNodesAreNeverExtracted() {
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int a = g.add(ENode.leaf(LEAF, 1));
    int bad = g.add(ENode.leaf(BAD));
    int fbad = g.add(ENode.of(F, bad));
    int mixed = g.add(ENode.of(G, a, a));
    g.union(mixed, g.add(ENode.leaf(BAD, 5)));
    g.rebuild();
    CostModel noBad = n -> n.op() == BAD ? -1 : 1;
    Extractor e = new Extractor(g, noBad);
    assertNull(e.extract(bad));
    assertNull(e.extract(fbad), "its only child has no allowed term");
    assertEquals(Long.MAX_VALUE, e.cost(fbad));
    assertEquals("(g (leaf[1]) (leaf[1]))", show(e.extract(mixed)));
    Extractor e2 = new Extractor(g, n -> n.op() == BAD ? Long.MAX_VALUE : 1);
    assertNull(e2.extract(bad));
  }

  @Test
  void cyclesTerminateAndPickAFiniteTerm() {
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int a = g.add(ENode.leaf(LEAF, 1));
    int fa = g.add(ENode.of(F, a));
    g.union(a, fa); // the class holds leaf and f(itself)
    g.rebuild();
    assertEquals("(leaf[1])", show(new Extractor(g, CostModel.astSize()).extract(fa)));
    // zero costs: still the finite term, because fewer nodes break the tie
    assertEquals("(leaf[1])", show(new Extractor(g, n -> 0).extract(fa)));
    // with the leaf forbidden the class has no finite term at all
    assertNull(new Extractor(g, n -> n.op() == LEAF ? -1 : 1).extract(fa));
  }

  @Test
  void tiesGoToTheSmallerOperatorThenAttributes() {
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int x = g.add(ENode.leaf(G, 7));
    g.union(x, g.add(ENode.leaf(F, 9)));
    g.union(x, g.add(ENode.leaf(F, 8)));
    g.union(x, g.add(ENode.leaf(G, 1)));
    g.rebuild();
    assertEquals("(f[8])", show(new Extractor(g, CostModel.astSize()).extract(x)));
  }

  @Test
  void sharedSubtermsAreExtractedOnce() {
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int a = g.add(ENode.leaf(LEAF, 1));
    int fa = g.add(ENode.of(F, a));
    int top = g.add(ENode.of(G, fa, fa));
    Term t = new Extractor(g, CostModel.astSize()).extract(top);
    assertSame(t.child(0), t.child(1));
    assertEquals(5, t.size());
    assertEquals(G, t.op());
    assertEquals(1, t.child(0).child(0).attr(0));
  }

  @Test
  void deepTermsNeedNoDeepStack() {
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int t = g.add(ENode.leaf(LEAF, 1));
    for (int i = 0; i < 20_000; i++) {
      t = g.add(ENode.of(F, t));
    }
    Extractor e = new Extractor(g, CostModel.astSize());
    Term term = e.extract(t);
    assertEquals(20_001, e.cost(t));
    assertEquals(F, term.op());
  }

  @Test
  void refusesToAnswerAfterTheGraphChanged() {
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int a = g.add(ENode.leaf(LEAF, 1));
    Extractor e = new Extractor(g, CostModel.astSize());
    g.add(ENode.leaf(LEAF, 1));
    assertEquals(1, e.cost(a), "adding an existing node changes nothing");
    g.add(ENode.of(F, a));
    assertThrows(IllegalStateException.class, () -> e.extract(a));
  }

  @Test
  void refusesADirtyGraph() {
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int a = g.add(ENode.leaf(LEAF, 1));
    g.union(a, g.add(ENode.leaf(LEAF, 2)));
    assertThrows(IllegalStateException.class, () -> new Extractor(g, CostModel.astSize()));
  }
}
