package dev.entangle.refine;

import static dev.entangle.eval.Graphs.ref;
import static dev.entangle.eval.Graphs.type;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.cli.CliRun;
import dev.entangle.eval.Graphs;
import dev.entangle.graph.Graph;
import dev.entangle.graph.GraphJson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A required output computed from constants alone (the gradient of a bias under a loss that sums
 * the outputs: a sum of ones) matches a G_d constant output known to hold the same single value,
 * however G_d computes it (each rank's ones all-gathered first, as a sequence-parallel backward
 * does); one holding another value does not.
 */
class GatheredConstantOutputTest {
  @TempDir Path dir;

  private static final String GATHER = "_c10d_functional.all_gather_into_tensor.default";
  private static final String WAIT = "_c10d_functional.wait_tensor.default";

  private CliRun check(double rankFill) throws IOException {
    Graph gs =
        new Graphs()
            .input("x", "float32", 8, 3)
            .call("ones", "aten.ones.default", type("float32", 8, 3), List.of(8, 3))
            .call("g", "aten.sum.dim_IntList", type("float32", 3), ref("ones"), List.of(0))
            .build("g");
    Graph rank =
        new Graphs()
            .input("x", "float32", 4, 3)
            .call("fill", "aten.full.default", type("float32", 4, 3), List.of(4, 3), rankFill)
            .call("all", GATHER, type("float32", 8, 3), ref("fill"), 2, "tp")
            .call("allw", WAIT, type("float32", 8, 3), ref("all"))
            .call("g", "aten.sum.dim_IntList", type("float32", 3), ref("allw"), List.of(0))
            .build("g");
    Path gsFile = dir.resolve("gs.json");
    Path gdFile = dir.resolve("gd.json");
    Path ri = dir.resolve("ri.json");
    GraphJson.write(gs, gsFile);
    GraphJson.write(Graphs.distributed(rank, rank), gdFile);
    Files.writeString(
        ri,
        "{\"format\": \"entangle-relation/1\", \"relations\": [{\"gs\": \"x\", \"shard\": 0}]}");
    return CliRun.check(gsFile, gdFile, ri);
  }

  @Test
  void aSumOfGatheredOnesIsTheSumOfOnes() throws IOException {
    CliRun run = check(1.0);
    assertEquals(0, run.exitCode(), run::toString);
    assertTrue(run.out().contains("g: r0.g"), run.out());
  }

  @Test
  void aSumOfGatheredTwosIsNot() throws IOException {
    CliRun run = check(2.0);
    assertEquals(1, run.exitCode(), run::toString);
    assertTrue(run.out().startsWith("not-refined"), run.out());
  }
}
