package dev.entangle.refine;

import static dev.entangle.refine.HandGraphs.call;
import static dev.entangle.refine.HandGraphs.input;
import static dev.entangle.refine.HandGraphs.ref;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.cli.CliRun;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A value an operation reads for its shape alone is no input of its term: a training graph seeds
 * its backward with {@code ones_like(loss)}, and a G_d whose backward is written by hand never
 * computes the loss. The gradient is still checked; only the loss itself needs no G_d tensor.
 */
class ReadForShapeTest {
  @TempDir Path tmp;

  /** G_s: the gradient of sum(a * a) by hand from the loss's seed, {@code ones_like(loss) * 2a}. */
  private static String gs() {
    return HandGraphs.graph(
        List.of(
            input("a", "[4, 2]"),
            call("sq", "aten.mul.Tensor", "[" + ref("a") + ", " + ref("a") + "]", "[4, 2]"),
            call("loss", "aten.sum.default", "[" + ref("sq") + "]", "[]"),
            call("seed", "aten.ones_like.default", "[" + ref("loss") + "]", "[]"),
            call("wide", "aten.expand.default", "[" + ref("seed") + ", [4, 2]]", "[4, 2]"),
            call("twice", "aten.mul.Tensor", "[" + ref("a") + ", 2.0]", "[4, 2]"),
            call(
                "grad",
                "aten.mul.Tensor",
                "[" + ref("wide") + ", " + ref("twice") + "]",
                "[4, 2]")),
        "grad");
  }

  private CliRun check(double factor) throws IOException {
    String rank =
        HandGraphs.graph(
            List.of(
                input("a", "[2, 2]"),
                call("g", "aten.mul.Tensor", "[" + ref("a") + ", " + factor + "]", "[2, 2]")),
            "g");
    return HandGraphs.check(
        tmp, gs(), List.of(rank, rank), "{\"gs\": \"a\", \"gd\": \"concat(r0.a, r1.a, dim=0)\"}");
  }

  @Test
  void aGradientSeededByTheLossRefinesWhereTheLossIsNeverComputed() throws IOException {
    CliRun run = check(2.0);
    assertEquals(0, run.exitCode(), run::transcript);
    assertTrue(run.out().contains("grad: concat(r0.g, r1.g, dim=0)"), run::transcript);
  }

  @Test
  void aWrongGradientIsStillFoundAtItsOperator() throws IOException {
    CliRun run = check(3.0);
    assertEquals(1, run.exitCode(), run::transcript);
    assertTrue(run.out().contains("operator: grad"), run::transcript);
    assertFalse(run.out().contains("related to no G_d tensor"), run::transcript);
  }
}
