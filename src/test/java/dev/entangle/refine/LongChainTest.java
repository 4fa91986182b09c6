package dev.entangle.refine;

import static dev.entangle.refine.HandGraphs.call;
import static dev.entangle.refine.HandGraphs.input;
import static dev.entangle.refine.HandGraphs.ref;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.cli.CliRun;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A deferred chain longer than the checker follows, whose root is a value G_d never computes as a
 * whole (each rank holds blocks of it, as a ring attention holds blocks of the scores), is judged
 * at the outputs it reaches: equal on numbers, the check is unproved (a gap in the lemmas), not a
 * bug; different, the failure stays at the root.
 */
class LongChainTest {
  private static final int STEPS = 14;

  @TempDir Path tmp;

  /** {@code tanh} applied STEPS times to {@code from}; returns the last node's name. */
  private static String tanhs(List<String> nodes, String from, String shape, int steps) {
    String last = from;
    for (int i = 0; i < steps; i++) {
      String next = from + "_t" + i;
      nodes.add(call(next, "aten.tanh.default", "[" + ref(last) + "]", shape));
      last = next;
    }
    return last;
  }

  /** G_s: the rows' sums of tanh^STEPS of the outer product x x^T (and 2x). */
  private static String gs() {
    List<String> n = new ArrayList<>();
    n.add(input("x", "[4]"));
    n.add(call("col", "aten.view.default", "[" + ref("x") + ", [4, 1]]", "[4, 1]"));
    n.add(call("row", "aten.view.default", "[" + ref("x") + ", [1, 4]]", "[1, 4]"));
    n.add(call("outer", "aten.mul.Tensor", "[" + ref("col") + ", " + ref("row") + "]", "[4, 4]"));
    String last = tanhs(n, "outer", "[4, 4]", STEPS);
    n.add(call("rows", "aten.sum.dim_IntList", "[" + ref(last) + ", [1]]", "[4]"));
    n.add(call("xx", "aten.mul.Tensor", "[" + ref("x") + ", 2.0]", "[4]"));
    return HandGraphs.graph(n, "rows", "xx");
  }

  /**
   * A rank: its rows of x times each half of the whole x, as products with an inner dim of one,
   * each block taken through tanh ({@code steps} for the second block), the blocks' row sums added.
   */
  private static String rank(int secondSteps) {
    List<String> n = new ArrayList<>();
    n.add(input("xr", "[2]"));
    n.add(input("xf", "[4]"));
    n.add(call("col", "aten.view.default", "[" + ref("xr") + ", [2, 1]]", "[2, 1]"));
    List<String> sums = new ArrayList<>();
    for (int b = 0; b < 2; b++) {
      String half = "h" + b;
      n.add(
          call(
              half,
              "aten.slice.Tensor",
              "[" + ref("xf") + ", 0, " + 2 * b + ", " + (2 * b + 2) + "]",
              "[2]"));
      n.add(call(half + "r", "aten.view.default", "[" + ref(half) + ", [1, 2]]", "[1, 2]"));
      String block = "b" + b;
      n.add(
          call(
              block, "aten.mm.default", "[" + ref("col") + ", " + ref(half + "r") + "]", "[2, 2]"));
      String last = tanhs(n, block, "[2, 2]", b == 0 ? STEPS : secondSteps);
      n.add(call("s" + b, "aten.sum.dim_IntList", "[" + ref(last) + ", [1]]", "[2]"));
      sums.add("s" + b);
    }
    n.add(
        call(
            "rows",
            "aten.add.Tensor",
            "[" + ref(sums.get(0)) + ", " + ref(sums.get(1)) + "]",
            "[2]"));
    return HandGraphs.graph(n, "rows");
  }

  private CliRun check(int secondSteps) throws IOException {
    return HandGraphs.check(
        tmp,
        gs(),
        List.of(rank(secondSteps), rank(secondSteps)),
        "{\"gs\": \"x\", \"gd\": \"concat(r0.xr, r1.xr, dim=0)\"},"
            + " {\"gs\": \"x\", \"gd\": \"r0.xf\"}, {\"gs\": \"x\", \"gd\": \"r1.xf\"}");
  }

  /**
   * Only xx is a required output; the rows' sums are stated as an expectation, which the chain
   * reaches without a model output to judge it by.
   */
  private CliRun checkExpecting(int secondSteps) throws IOException {
    Path gs = Files.writeString(tmp.resolve("gs.json"), gs());
    Path gd =
        Files.writeString(
            tmp.resolve("gd.json"),
            HandGraphs.distributed(List.of(rank(secondSteps), rank(secondSteps))));
    Path ri =
        Files.writeString(
            tmp.resolve("ri.json"),
            "{\"format\": \"entangle-relation/1\", \"relations\": ["
                + "{\"gs\": \"x\", \"gd\": \"concat(r0.xr, r1.xr, dim=0)\"},"
                + " {\"gs\": \"x\", \"gd\": \"r0.xf\"}, {\"gs\": \"x\", \"gd\": \"r1.xf\"}],"
                + " \"outputs\": [\"xx\"],"
                + " \"expect\": [{\"gs\": \"rows\", \"gd\": \"concat(r0.rows, r1.rows, dim=0)\"}]}");
    return CliRun.check(gs, gd, ri);
  }

  @Test
  void anExpectationAboutAChainThatReachesNoOutputIsComparedOnNumbers() throws IOException {
    CliRun ok = checkExpecting(STEPS);
    assertTrue(ok.out().startsWith("unproved"), ok::transcript);
    CliRun bug = checkExpecting(STEPS + 1);
    assertEquals(1, bug.exitCode(), bug::transcript);
    assertTrue(bug.out().startsWith("expectation-violated"), bug::transcript);
  }

  @Test
  void aLongChainFromAValueNoRankHoldsWholeIsJudgedAtItsOutputs() throws IOException {
    CliRun run = check(STEPS);
    assertTrue(run.out().startsWith("unproved"), run::transcript);
    assertTrue(run.out().contains("rows: concat(r0.rows, r1.rows, dim=0)"), run::transcript);
  }

  @Test
  void aDifferentOutputLeavesTheFailureAtTheChainsRoot() throws IOException {
    CliRun run = check(STEPS + 1);
    assertEquals(1, run.exitCode(), run::transcript);
    assertTrue(run.out().startsWith("not-refined"), run::transcript);
    assertTrue(run.out().contains("operator: outer"), run::transcript);
    // the numbers shown are the differing output's: the root's value no rank computes whole
    assertTrue(
        run.out().contains("equals rows [4]; the closest, concat(r0.rows, r1.rows, dim=0)"),
        run::transcript);
  }
}
