package dev.entangle.egraph;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ENodeTest {
  @Test
  void equalityCoversOperatorAttributesAndChildren() {
    ENode n = new ENode(1, new long[] {2, 3}, new int[] {4, 5});
    assertEquals(n, new ENode(1, new long[] {2, 3}, new int[] {4, 5}));
    assertEquals(n.hashCode(), new ENode(1, new long[] {2, 3}, new int[] {4, 5}).hashCode());
    assertNotEquals(n, new ENode(0, new long[] {2, 3}, new int[] {4, 5}));
    assertNotEquals(n, new ENode(1, new long[] {2, 4}, new int[] {4, 5}));
    assertNotEquals(n, new ENode(1, new long[] {2, 3}, new int[] {5, 4}));
    assertNotEquals(n, new ENode(1, new long[] {2}, new int[] {4, 5}));
  }

  @Test
  void isImmutable() {
    long[] attrs = {7};
    int[] children = {1, 2};
    ENode n = new ENode(0, attrs, children);
    attrs[0] = 8;
    children[0] = 9;
    assertEquals(7, n.attr(0));
    assertEquals(1, n.child(0));
    n.attrs()[0] = 10;
    n.children()[1] = 10;
    assertArrayEquals(new long[] {7}, n.attrs());
    assertArrayEquals(new int[] {1, 2}, n.children());
  }

  @Test
  void emptyArraysAreShared() {
    ENode leaf = new ENode(3, new long[0], new int[0]);
    assertSame(ENode.NO_ATTRS, leaf.attrs());
    assertSame(ENode.NO_CHILDREN, leaf.children());
    assertEquals(0, leaf.arity());
    assertEquals(0, leaf.attrCount());
  }

  @Test
  void withChildrenKeepsOperatorAndAttributes() {
    ENode n = new ENode(2, new long[] {1}, new int[] {0, 0});
    ENode m = n.withChildren(new int[] {3, 4});
    assertEquals(new ENode(2, new long[] {1}, new int[] {3, 4}), m);
    assertEquals(0, n.child(1));
  }

  @Test
  void canonicalReplacesChildrenByRoots() {
    UnionFind uf = new UnionFind();
    for (int i = 0; i < 4; i++) {
      uf.makeSet();
    }
    uf.union(3, 1);
    ENode n = ENode.of(0, 0, 1, 2);
    assertEquals(ENode.of(0, 0, 3, 2), n.canonical(uf));
    ENode canon = ENode.of(0, 0, 3);
    assertSame(canon, canon.canonical(uf));
  }

  @Test
  void compareOrdersByOperatorThenAttributesThenChildren() {
    assertTrue(ENode.compare(ENode.leaf(1, 9), ENode.leaf(2, 0)) < 0);
    assertTrue(ENode.compare(ENode.leaf(1, 1), ENode.leaf(1, 2)) < 0);
    assertTrue(ENode.compare(ENode.of(1, 0, 5), ENode.of(1, 1, 0)) < 0);
    assertEquals(0, ENode.compare(ENode.of(1, 2), ENode.of(1, 2)));
  }

  @Test
  void rendersWithOperatorNames() {
    assertEquals(
        "(f[1 2] c3 c4)", new ENode(0, new long[] {1, 2}, new int[] {3, 4}).render(op -> "f"));
  }
}
