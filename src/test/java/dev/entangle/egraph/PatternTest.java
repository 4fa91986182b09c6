package dev.entangle.egraph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class PatternTest {
  private final Pattern p =
      Pattern.node(
          1,
          List.of(AttrPattern.var("d"), AttrPattern.lit(3), AttrPattern.any()),
          Pattern.var("y"),
          Pattern.node(2, Pattern.var("x"), Pattern.var("y")));

  @Test
  void variablesInOrderOfFirstOccurrence() {
    assertEquals(List.of("y", "x"), List.copyOf(p.classVars()));
    assertEquals(List.of("d"), List.copyOf(p.attrVars()));
    assertTrue(p.hasWildcard());
    assertFalse(Pattern.node(2, Pattern.var("x")).hasWildcard());
  }

  @Test
  void rendersWithOperatorNames() {
    assertEquals("(f[d 3 _] ?y (g ?x ?y))", p.render(op -> op == 1 ? "f" : "g"));
  }

  @Test
  void rejectsEmptyNamesAndNegativeOperators() {
    assertThrows(IllegalArgumentException.class, () -> Pattern.var(""));
    assertThrows(IllegalArgumentException.class, () -> AttrPattern.var(""));
    assertThrows(IllegalArgumentException.class, () -> Pattern.node(-1));
  }
}
