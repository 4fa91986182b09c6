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
 * A collective whose recorded result shape is not what it computes over its group is bad input
 * (exit 2), named by rank and node.
 */
class CollectiveShapeErrorsTest {
  @TempDir Path tmp;

  /** Both ranks hold {@code rows} rows of x and run one collective over group tp of two ranks. */
  private CliRun check(int rows, String target, String args, String recorded) throws IOException {
    String gs = HandGraphs.graph(List.of(input("x", "[" + 2 * rows + ", 3]")), "x");
    String rank =
        HandGraphs.graph(
            List.of(
                input("x", "[" + rows + ", 3]"),
                call("c", target, "[" + ref("x") + ", " + args + "]", recorded),
                call("w", "_c10d_functional.wait_tensor.default", "[" + ref("c") + "]", recorded)),
            "w");
    return HandGraphs.check(
        tmp, gs, List.of(rank, rank), "{\"gs\": \"x\", \"gd\": \"concat(r0.x, r1.x, dim=0)\"}");
  }

  @Test
  void rowsThatDoNotDivideAmongTheRanksAreReported() throws IOException {
    CliRun run =
        check(3, "_c10d_functional.reduce_scatter_tensor.default", "\"sum\", 2, \"tp\"", "[1, 3]");
    assertEquals(2, run.exitCode(), run::transcript);
    assertTrue(
        run.err()
            .contains(
                ": rank 0, node 'c': reduce_scatter_tensor of 3 rows over 2 ranks does not"
                    + " divide evenly."),
        run::transcript);
  }

  @Test
  void aGroupSizeOtherThanTheGroupsIsReported() throws IOException {
    // the arguments say 3 ranks, and the node records what 3 would gather; group tp has 2
    CliRun run = check(2, "_c10d_functional.all_gather_into_tensor.default", "3, \"tp\"", "[6, 3]");
    assertEquals(2, run.exitCode(), run::transcript);
    assertTrue(
        run.err()
            .contains(
                ": rank 0, node 'c' (_c10d_functional.all_gather_into_tensor.default) records"
                    + " shape [6, 3] but over 2 rank(s) it computes [4, 3] from its input of"
                    + " shape [2, 3]; check the node in the graph file."),
        run::transcript);
  }
}
