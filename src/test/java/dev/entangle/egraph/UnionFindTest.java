package dev.entangle.egraph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import org.junit.jupiter.api.Test;

class UnionFindTest {
  @Test
  void newSetsAreDenseSingletons() {
    UnionFind uf = new UnionFind();
    for (int i = 0; i < 40; i++) {
      assertEquals(i, uf.makeSet());
    }
    assertEquals(40, uf.size());
    for (int i = 0; i < 40; i++) {
      assertEquals(i, uf.find(i));
    }
  }

  @Test
  void unionKeepsTheChosenRoot() {
    UnionFind uf = new UnionFind();
    int a = uf.makeSet();
    int b = uf.makeSet();
    int c = uf.makeSet();
    assertEquals(b, uf.union(b, a));
    assertEquals(b, uf.find(a));
    assertEquals(b, uf.find(b));
    assertNotEquals(uf.find(a), uf.find(c));
    uf.union(c, b);
    assertEquals(c, uf.find(a));
  }

  @Test
  void longChainsCompressToTheRoot() {
    UnionFind uf = new UnionFind();
    int n = 10_000;
    for (int i = 0; i < n; i++) {
      uf.makeSet();
    }
    for (int i = 1; i < n; i++) {
      uf.union(i, i - 1); // chain 0 -> 1 -> ... -> n-1
    }
    assertEquals(n - 1, uf.find(0));
    for (int i = 0; i < n; i++) {
      assertEquals(n - 1, uf.find(i));
    }
  }
}
