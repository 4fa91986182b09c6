package dev.entangle.egraph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RewriteTest {
  private static final Runner RUNNER = new Runner().withIterLimit(10);

  @Test
  void rejectsAnUnboundClassVariableOnTheRightWhenBuilt() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> Arith.rule("make-y", "(+ ?x 0)", "(+ ?x ?y)"));
    assertEquals(
        "rewrite make-y: the right side uses class variable ?y that the left side does not bind",
        e.getMessage());
  }

  @Test
  void rejectsAnUnboundAttributeVariableOnTheRightWhenBuilt() {
    Pattern lhs = Pattern.node(Arith.NUM, List.of(AttrPattern.var("n")));
    Pattern rhs = Pattern.node(Arith.NUM, List.of(AttrPattern.var("m")));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Rewrite.of("renumber", lhs, rhs));
    assertTrue(
        e.getMessage().contains("renumber") && e.getMessage().contains("attribute variable m"),
        e.getMessage());
  }

  @Test
  void rejectsWhatACustomApplierReadsButTheLeftSideLacks() {
    Applier reader =
        new Applier() {
          @Override
          public void apply(EGraph<?> g, Match m, Unions unions) {}

          @Override
          public Set<String> classVars() {
            return Set.of("z");
          }
        };
    assertThrows(
        IllegalArgumentException.class,
        () -> new Rewrite("custom", Arith.pattern("(+ ?a ?b)"), reader));
  }

  @Test
  void rejectsWildcardsOnTheRightAndEmptyNames() {
    Pattern wild = Pattern.node(Arith.NUM, List.of(AttrPattern.any()));
    assertThrows(IllegalArgumentException.class, () -> new PatternApplier(wild));
    assertThrows(IllegalArgumentException.class, () -> Arith.rule(" ", "?a", "?a"));
  }

  @Test
  void aRightSideMayDropVariablesAndReuseAttributes() {
    Pattern lhs = Pattern.node(Arith.NUM, List.of(AttrPattern.var("n")));
    Rewrite r = Rewrite.of("double", lhs, Pattern.node(Arith.ADD, lhs, lhs));
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int three = g.add(Arith.num(3));
    RUNNER.run(g, List.of(r, Arith.rule("drop", "(+ ?a ?b)", "?a")));
    assertEquals(g.find(three), g.lookup(ENode.of(Arith.ADD, three, three)));
  }

  @Test
  void conditionsGuardApplications() {
    Condition leftIsNumber =
        (g, m) -> g.nodes(m.subst().cls("a")).stream().anyMatch(n -> n.op() == Arith.NUM);
    Rewrite swapNumbersLeft =
        new Rewrite(
            "swap-if-number",
            Arith.pattern("(+ ?a ?b)"),
            leftIsNumber,
            new PatternApplier(Arith.pattern("(+ ?b ?a)")));
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int withNumber = Arith.add(g, "(+ 1 x)");
    int without = Arith.add(g, "(+ y x)");
    RunReport r = RUNNER.run(g, List.of(swapNumbersLeft));
    assertEquals(withNumber, Arith.add(g, "(+ x 1)"));
    assertNotEquals(without, Arith.add(g, "(+ x y)"));
    assertEquals(1, r.applications().get("swap-if-number"));
  }

  @Test
  void existingOnlyAppliersUseTermsThatAlreadyExist() {
    Rewrite r =
        new Rewrite(
            "comm-if-present",
            Arith.pattern("(+ ?a ?b)"),
            PatternApplier.existingOnly(Arith.pattern("(+ ?b ?a)")));
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int ab = Arith.add(g, "(+ a b)");
    int cd = Arith.add(g, "(+ c d)");
    int ba = Arith.add(g, "(+ b a)");
    int nodes = g.nodeCount();
    RunReport report = RUNNER.run(g, List.of(r));
    assertEquals(g.find(ab), g.find(ba));
    assertEquals(
        -1, g.lookup(ENode.of(Arith.ADD, g.lookup(Arith.var("d")), g.lookup(Arith.var("c")))));
    assertEquals(nodes, g.nodeCount(), "nothing added");
    assertEquals(StopReason.SATURATED, report.stopReason());
    assertTrue(cd >= 0);
  }
}
