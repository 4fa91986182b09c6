package dev.entangle.egraph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SubstTest {
  @Test
  void bindsClassesAndAttributesInSeparateNamespaces() {
    Subst s = Subst.EMPTY.withCls("x", 3).withAttr("x", 42L);
    assertEquals(3, s.cls("x"));
    assertEquals(42L, s.attr("x"));
    assertTrue(s.hasCls("x") && s.hasAttr("x"));
    assertFalse(s.hasCls("y"));
    assertEquals(2, s.size());
  }

  @Test
  void isImmutable() {
    Subst s = Subst.EMPTY.withCls("x", 1);
    Subst t = s.withCls("x", 2).withCls("y", 5);
    assertEquals(1, s.cls("x"));
    assertFalse(s.hasCls("y"));
    assertEquals(2, t.cls("x"));
    assertEquals(0, Subst.EMPTY.size());
  }

  @Test
  void equalityIgnoresBindingOrder() {
    Subst a = Subst.EMPTY.withCls("x", 1).withCls("y", 2).withAttr("k", 7);
    Subst b = Subst.EMPTY.withAttr("k", 7).withCls("y", 2).withCls("x", 1);
    assertEquals(a, b);
    assertEquals(a.hashCode(), b.hashCode());
    assertNotEquals(a, b.withCls("x", 3));
    assertNotEquals(a, b.withAttr("j", 0));
  }

  @Test
  void unboundVariablesAreNamedInTheError() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Subst.EMPTY.cls("x"));
    assertTrue(e.getMessage().contains("?x"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> Subst.EMPTY.attr("dim"));
    assertTrue(e.getMessage().contains("dim"), e.getMessage());
  }
}
