package dev.entangle.refine;

import static dev.entangle.refine.HandGraphs.call;
import static dev.entangle.refine.HandGraphs.input;
import static dev.entangle.refine.HandGraphs.ref;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.cli.CliRun;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Operators lowered through decompositions ({@code cumsum}, {@code flip}, {@code repeat}, {@code
 * var}) check like any other: applied along the feature dim of a tensor whose rows are split over
 * two ranks, each rank's result is its rows of G_s's, and the same operator along the split dim is
 * a bug the numbers show.
 */
class RowShardedDecompositionsTest {
  @TempDir Path tmp;

  /**
   * G_s applies {@code target} with {@code args} (after x) to x [4, 3]; each rank to its [2, 3].
   */
  private CliRun check(String target, String args, String gsShape, String gdArgs, String gdShape)
      throws IOException {
    String gs =
        HandGraphs.graph(
            List.of(input("x", "[4, 3]"), call("y", target, "[" + ref("x") + args + "]", gsShape)),
            "y");
    String rank =
        HandGraphs.graph(
            List.of(
                input("x", "[2, 3]"), call("y", target, "[" + ref("x") + gdArgs + "]", gdShape)),
            "y");
    return HandGraphs.check(
        tmp, gs, List.of(rank, rank), "{\"gs\": \"x\", \"gd\": \"concat(r0.x, r1.x, dim=0)\"}");
  }

  private static void refines(CliRun run) {
    assertEquals(0, run.exitCode(), run::transcript);
    assertTrue(run.out().contains("y: concat(r0.y, r1.y, dim=0)"), run::transcript);
  }

  private static void notRefinedWithNumbers(CliRun run) {
    assertEquals(1, run.exitCode(), run::transcript);
    assertTrue(run.out().contains("operator: y (aten."), run::transcript);
    assertTrue(run.out().contains("on random inputs (seed 1)"), run::transcript);
  }

  @Test
  void cumsumAlongTheFeaturesMapsAndAlongTheRowsIsABug() throws IOException {
    refines(check("aten.cumsum.default", ", 1", "[4, 3]", ", 1", "[2, 3]"));
    notRefinedWithNumbers(check("aten.cumsum.default", ", 1", "[4, 3]", ", 0", "[2, 3]"));
  }

  @Test
  void flipOfTheFeaturesMapsAndOfTheRowsIsABug() throws IOException {
    refines(check("aten.flip.default", ", [1]", "[4, 3]", ", [1]", "[2, 3]"));
    notRefinedWithNumbers(check("aten.flip.default", ", [1]", "[4, 3]", ", [0]", "[2, 3]"));
  }

  @Test
  void repeatOfTheFeaturesMaps() throws IOException {
    refines(check("aten.repeat.default", ", [1, 2]", "[4, 6]", ", [1, 2]", "[2, 6]"));
  }

  @Test
  void varianceOfEachRowMapsAndWithoutCorrectionIsABug() throws IOException {
    refines(check("aten.var.dim", ", [1], true, true", "[4, 1]", ", [1], true, true", "[2, 1]"));
    notRefinedWithNumbers(
        check("aten.var.dim", ", [1], true, true", "[4, 1]", ", [1], false, true", "[2, 1]"));
  }
}
