package dev.entangle.egraph;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class EGraphTest {
  private static final int LEAF = 0;
  private static final int F = 1;
  private static final int G = 2;

  private static int leaf(EGraph<?> g, long name) {
    return g.add(ENode.leaf(LEAF, name));
  }

  @Test
  void equalNodesShareAClass() {
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int a = leaf(g, 1);
    int fa = g.add(ENode.of(F, a));
    assertEquals(a, leaf(g, 1));
    assertEquals(fa, g.add(ENode.of(F, a)));
    assertNotEquals(a, leaf(g, 2));
    assertEquals(3, g.nodeCount());
    assertEquals(3, g.classCount());
    assertTrue(g.isClean(), "adding keeps a clean graph clean");
  }

  @Test
  void lookupFindsOnlyPresentNodes() {
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int a = leaf(g, 1);
    int fa = g.add(ENode.of(F, a));
    assertEquals(fa, g.lookup(ENode.of(F, a)));
    assertEquals(-1, g.lookup(ENode.of(G, a, a)));
    assertEquals(-1, g.lookup(ENode.leaf(LEAF, 2)));
    assertEquals(2, g.nodeCount(), "lookup adds nothing");
  }

  @Test
  void unionReportsWhetherItChangedAnything() {
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int a = leaf(g, 1);
    int b = leaf(g, 2);
    assertTrue(g.union(a, b));
    assertFalse(g.union(b, a));
    assertFalse(g.union(a, a));
    assertEquals(g.find(a), g.find(b));
    assertEquals(1, g.classCount());
  }

  @Test
  void congruenceMergesParentsAfterRebuild() {
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int a = leaf(g, 1);
    int b = leaf(g, 2);
    int fa = g.add(ENode.of(F, a));
    int fb = g.add(ENode.of(F, b));
    g.union(a, b);
    assertFalse(g.isClean());
    g.rebuild();
    assertTrue(g.isClean());
    assertEquals(g.find(fa), g.find(fb));
    assertEquals(2, g.classCount());
    assertEquals(3, g.nodeCount(), "f(a) and f(b) are one node now");
    assertEquals(1, g.nodes(fa).size());
    assertInvariants(g);
  }

  @Test
  void congruencePropagatesThroughNestingAndLongChains() {
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int a = leaf(g, 1);
    int b = leaf(g, 2);
    int ta = a;
    int tb = b;
    for (int i = 0; i < 200; i++) {
      ta = g.add(ENode.of(i % 2 == 0 ? F : G, ta, a));
      tb = g.add(ENode.of(i % 2 == 0 ? F : G, tb, b));
    }
    assertEquals(402, g.classCount());
    g.union(a, b);
    g.rebuild();
    assertEquals(g.find(ta), g.find(tb));
    assertEquals(201, g.classCount());
    assertEquals(202, g.nodeCount());
    assertInvariants(g);
  }

  @Test
  void congruenceNeedsEveryChildEqual() {
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int a = leaf(g, 1);
    int b = leaf(g, 2);
    int c = leaf(g, 3);
    int d = leaf(g, 4);
    int gac = g.add(ENode.of(G, a, c));
    int gbd = g.add(ENode.of(G, b, d));
    g.union(a, b);
    g.rebuild();
    assertNotEquals(g.find(gac), g.find(gbd));
    g.union(c, d);
    g.rebuild();
    assertEquals(g.find(gac), g.find(gbd));
    assertInvariants(g);
  }

  @Test
  void cyclesAreFine() {
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int a = leaf(g, 1);
    int fa = g.add(ENode.of(F, a));
    g.union(a, fa); // a = f(a), so a = f(f(a)) = ...
    g.rebuild();
    assertEquals(1, g.classCount());
    assertEquals(g.find(a), g.lookup(ENode.of(F, a)));
    int ffa = g.add(ENode.of(F, g.add(ENode.of(F, a))));
    assertEquals(g.find(a), ffa);
    assertEquals(2, g.nodeCount());
    assertInvariants(g);
  }

  @Test
  void rebuildRestoresTheHashconsForStaleIds() {
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int a = leaf(g, 1);
    int b = leaf(g, 2);
    int c = leaf(g, 3);
    int fb = g.add(ENode.of(F, b));
    int fc = g.add(ENode.of(F, c));
    g.union(a, b);
    g.union(a, c);
    g.rebuild();
    // every old spelling of the node finds the one class
    assertEquals(g.find(fb), g.lookup(ENode.of(F, a)));
    assertEquals(g.find(fb), g.lookup(ENode.of(F, b)));
    assertEquals(g.find(fb), g.lookup(ENode.of(F, c)));
    assertEquals(g.find(fc), g.find(fb));
    assertEquals(g.find(fb), g.add(ENode.of(F, c)));
    assertEquals(4, g.nodeCount(), "three leaves and one f");
    assertInvariants(g);
  }

  @Test
  void operatorIndexListsClassesAscendingAndFollowsUnions() {
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int a = leaf(g, 1);
    int b = leaf(g, 2);
    int fa = g.add(ENode.of(F, a));
    int gab = g.add(ENode.of(G, a, b));
    assertArrayEquals(new int[] {a, b}, g.classesWithOp(LEAF));
    assertArrayEquals(new int[] {fa}, g.classesWithOp(F));
    assertArrayEquals(new int[0], g.classesWithOp(7));
    g.union(gab, fa);
    g.rebuild();
    assertArrayEquals(new int[] {g.find(fa)}, g.classesWithOp(F));
    assertArrayEquals(new int[] {g.find(fa)}, g.classesWithOp(G));
    assertInvariants(g);
  }

  @Test
  void nodesWithAnOperatorComeWithTheirCanonicalClass() {
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int a = leaf(g, 1);
    int b = leaf(g, 2);
    int fa = g.add(ENode.of(F, a));
    int fb = g.add(ENode.of(F, b));
    int gab = g.add(ENode.of(G, a, b));
    g.union(gab, fb);
    g.rebuild();
    List<EGraph.Held> fs = g.nodesWithOp(F);
    assertEquals(
        List.of(new EGraph.Held(fa, ENode.of(F, a)), new EGraph.Held(g.find(fb), ENode.of(F, b))),
        fs);
    assertEquals(List.of(new EGraph.Held(g.find(gab), ENode.of(G, a, b))), g.nodesWithOp(G));
    assertEquals(List.of(), g.nodesWithOp(7));
  }

  @Test
  void parentsAreTheNodesUsingAClass() {
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int a = leaf(g, 1);
    int b = leaf(g, 2);
    g.add(ENode.of(F, a));
    g.add(ENode.of(G, a, a));
    g.add(ENode.of(F, b));
    assertEquals(List.of(ENode.of(F, a), ENode.of(G, a, a)), g.parents(a));
    g.union(a, b);
    g.rebuild();
    assertEquals(2, g.parents(a).size(), "f(a), f(b) collapsed; g(a,a) counted once");
  }

  @Test
  void classIdsAreTheCanonicalOnesAscending() {
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int a = leaf(g, 1);
    int b = leaf(g, 2);
    int c = leaf(g, 3);
    g.union(c, a);
    g.rebuild();
    int root = g.find(a);
    int[] expected = root < b ? new int[] {root, b} : new int[] {b, root};
    assertArrayEquals(expected, g.classIds());
    assertEquals(2, g.classCount());
    assertEquals(List.of(ENode.leaf(LEAF, 1), ENode.leaf(LEAF, 3)), g.nodes(c));
  }

  @Test
  void rejectsUnknownIdsAndOperators() {
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int a = leaf(g, 1);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> g.add(ENode.of(F, a, 5)));
    assertTrue(e.getMessage().contains("5"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> g.find(-1));
    assertThrows(IllegalArgumentException.class, () -> g.union(a, 1));
    assertThrows(IllegalArgumentException.class, () -> g.add(ENode.leaf(-2)));
  }

  @Test
  void dumpShowsClassesFactsAndNodes() {
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int a = leaf(g, 7);
    g.add(ENode.of(F, a));
    String names = "leaf f g";
    assertEquals("c0 = null: (leaf[7])\nc1 = null: (f c0)\n", g.dump(op -> names.split(" ")[op]));
  }

  /** Random terms and unions, checked against a naive congruence closure over the added terms. */
  @Test
  void agreesWithNaiveCongruenceClosure() {
    for (int seed = 0; seed < 40; seed++) {
      Random rnd = new Random(seed);
      EGraph<Void> g = new EGraph<>(Analysis.none());
      List<int[]> terms = new ArrayList<>(); // {op, attr, child0, child1} over term indices
      List<Integer> ids = new ArrayList<>();
      for (int i = 0; i < 60; i++) {
        int[] t;
        if (i < 5 || rnd.nextInt(4) == 0) {
          t = new int[] {LEAF, rnd.nextInt(5), -1, -1};
        } else if (rnd.nextBoolean()) {
          t = new int[] {F, 0, rnd.nextInt(i), -1};
        } else {
          t = new int[] {G, 0, rnd.nextInt(i), rnd.nextInt(i)};
        }
        terms.add(t);
        ENode n =
            t[0] == LEAF
                ? ENode.leaf(LEAF, t[1])
                : t[0] == F
                    ? ENode.of(F, ids.get(t[2]))
                    : ENode.of(G, ids.get(t[2]), ids.get(t[3]));
        ids.add(g.add(n));
      }
      int[] naive = new int[terms.size()];
      for (int i = 0; i < naive.length; i++) {
        naive[i] = i;
      }
      // equal leaves are one term in both
      closeNaively(terms, naive);
      for (int k = 0; k < 8; k++) {
        int x = rnd.nextInt(terms.size());
        int y = rnd.nextInt(terms.size());
        g.union(ids.get(x), ids.get(y));
        unionNaive(naive, x, y);
        if (rnd.nextInt(3) == 0) {
          g.rebuild();
        }
      }
      g.rebuild();
      closeNaively(terms, naive);
      for (int i = 0; i < terms.size(); i++) {
        for (int j = 0; j < terms.size(); j++) {
          boolean same = findNaive(naive, i) == findNaive(naive, j);
          assertEquals(same, g.find(ids.get(i)) == g.find(ids.get(j)), "seed " + seed);
        }
      }
      assertInvariants(g);
    }
  }

  private static void closeNaively(List<int[]> terms, int[] uf) {
    boolean changed = true;
    while (changed) {
      changed = false;
      for (int i = 0; i < terms.size(); i++) {
        for (int j = i + 1; j < terms.size(); j++) {
          int[] a = terms.get(i);
          int[] b = terms.get(j);
          boolean congruent =
              a[0] == b[0]
                  && a[1] == b[1]
                  && (a[2] < 0 || findNaive(uf, a[2]) == findNaive(uf, b[2]))
                  && (a[3] < 0 || findNaive(uf, a[3]) == findNaive(uf, b[3]));
          if (congruent && findNaive(uf, i) != findNaive(uf, j)) {
            unionNaive(uf, i, j);
            changed = true;
          }
        }
      }
    }
  }

  private static int findNaive(int[] uf, int i) {
    while (uf[i] != i) {
      i = uf[i];
    }
    return i;
  }

  private static void unionNaive(int[] uf, int a, int b) {
    uf[findNaive(uf, a)] = findNaive(uf, b);
  }

  /** The invariants rebuild promises, checked from the outside. */
  static void assertInvariants(EGraph<?> g) {
    assertTrue(g.isClean());
    int total = 0;
    Set<ENode> seen = new HashSet<>();
    int[] classes = g.classIds();
    assertEquals(g.classCount(), classes.length);
    for (int c : classes) {
      assertEquals(c, g.find(c));
      for (ENode n : g.nodes(c)) {
        total++;
        assertTrue(seen.add(n), "node " + n + " appears twice");
        for (int ch : n.children()) {
          assertEquals(g.find(ch), ch, "child of " + n + " is canonical");
        }
        assertEquals(c, g.lookup(n), "hashcons maps " + n + " to its class");
        assertTrue(
            Arrays.stream(g.classesWithOp(n.op())).anyMatch(x -> x == c),
            "op index lists class " + c);
      }
    }
    assertEquals(total, g.nodeCount(), "hashcons holds exactly the class nodes");
  }
}
