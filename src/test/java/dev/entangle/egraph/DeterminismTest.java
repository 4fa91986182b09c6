package dev.entangle.egraph;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The same input gives the same class ids, the same e-graph and the same extractions. */
class DeterminismTest {
  private record Outcome(String dump, List<String> extracted, RunReport report) {}

  private static Outcome runOnce() {
    EGraph<Long> g = new EGraph<>(new Arith.ConstantFolding());
    int a = Arith.add(g, "(* (+ x (* 2 y)) (+ z 0))");
    int b = Arith.add(g, "(+ (* x z) (* (* y 2) z))");
    RunReport r =
        Runner.run(
            g, Arith.rules(), new Runner.Limits(4, 1_000_000, Long.MAX_VALUE, 10_000), () -> false);
    Extractor e = new Extractor(g, CostModel.astSize());
    List<String> extracted =
        Arrays.stream(g.classIds()).mapToObj(c -> Arith.render(e.extract(c))).toList();
    return new Outcome(g.dump(Arith::opName) + "a=" + g.find(a) + " b=" + g.find(b), extracted, r);
  }

  @Test
  void twoRunsAgreeOnEverything() {
    Outcome first = runOnce();
    Outcome second = runOnce();
    assertEquals(first.dump(), second.dump());
    assertEquals(first.extracted(), second.extracted());
    assertArrayEquals(first.report().applied(), second.report().applied());
    assertEquals(first.report().stopReason(), second.report().stopReason());
  }
}
