package dev.entangle.egraph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class InstantiatorTest {
  private static final int LEAF = 0;
  private static final int F = 1;
  private static final int G = 2;

  private static final Pattern F_G_XY =
      Pattern.node(
          F, List.of(AttrPattern.var("k")), Pattern.node(G, Pattern.var("x"), Pattern.var("y")));

  @Test
  void instantiateAddsTheTermUnderTheBindings() {
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int a = g.add(ENode.leaf(LEAF, 1));
    int b = g.add(ENode.leaf(LEAF, 2));
    Subst s = Subst.EMPTY.withCls("x", a).withCls("y", b).withAttr("k", 9);
    int id = Instantiator.instantiate(g, F_G_XY, s);
    int gab = g.lookup(ENode.of(G, a, b));
    assertTrue(gab >= 0);
    assertEquals(id, g.lookup(new ENode(F, new long[] {9}, new int[] {gab})));
    assertEquals(4, g.nodeCount());
    assertEquals(id, Instantiator.instantiate(g, F_G_XY, s), "adding again finds it");
    assertEquals(4, g.nodeCount());
  }

  @Test
  void lookupInstanceOnlyFindsWholeExistingTerms() {
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int a = g.add(ENode.leaf(LEAF, 1));
    int b = g.add(ENode.leaf(LEAF, 2));
    Subst s = Subst.EMPTY.withCls("x", a).withCls("y", b).withAttr("k", 9);
    assertEquals(-1, Instantiator.lookupInstance(g, F_G_XY, s));
    g.add(ENode.of(G, a, b));
    assertEquals(
        -1, Instantiator.lookupInstance(g, F_G_XY, s), "the inner term alone is not enough");
    assertEquals(3, g.nodeCount(), "lookups add nothing");
    int id = Instantiator.instantiate(g, F_G_XY, s);
    assertEquals(id, Instantiator.lookupInstance(g, F_G_XY, s));
    assertEquals(-1, Instantiator.lookupInstance(g, F_G_XY, s.withAttr("k", 8)));
    assertEquals(a, Instantiator.lookupInstance(g, Pattern.var("x"), s));
  }

  @Test
  void unboundVariablesAndWildcardsCannotBeInstantiated() {
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int a = g.add(ENode.leaf(LEAF, 1));
    Subst onlyX = Subst.EMPTY.withCls("x", a).withAttr("k", 1);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> Instantiator.instantiate(g, F_G_XY, onlyX));
    assertTrue(e.getMessage().contains("?y"), e.getMessage());
    Pattern wild = Pattern.node(F, List.of(AttrPattern.any()), Pattern.var("x"));
    e =
        assertThrows(
            IllegalArgumentException.class, () -> Instantiator.instantiate(g, wild, onlyX));
    assertTrue(e.getMessage().contains("wildcard"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> Instantiator.lookupInstance(g, wild, onlyX));
  }
}
