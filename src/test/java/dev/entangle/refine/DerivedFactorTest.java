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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A factor the checker derives (a concat of the ranks' values each scaled by one factor, as a
 * data-parallel gradient relates to the ranks') helps prove values between operators, but no output
 * relation rests on it: G_d's gathered rows each computed from twice the input are not the
 * sequential product, however exactly they are twice its blocks.
 */
class DerivedFactorTest {
  @TempDir Path dir;

  private static final String GATHER = "_c10d_functional.all_gather_into_tensor.default";
  private static final String WAIT = "_c10d_functional.wait_tensor.default";

  private CliRun check(double factor) throws IOException {
    Graph gs =
        new Graphs()
            .input("x", "float32", 4, 3)
            .input("w", "float32", 3, 2)
            .call("y", "aten.mm.default", type("float32", 4, 2), ref("x"), ref("w"))
            .build("y");
    Graph rank =
        new Graphs()
            .input("x", "float32", 2, 3)
            .input("w", "float32", 3, 2)
            .call("xs", "aten.mul.Tensor", type("float32", 2, 3), ref("x"), factor)
            .call("y", "aten.mm.default", type("float32", 2, 2), ref("xs"), ref("w"))
            .call("g", GATHER, type("float32", 4, 2), ref("y"), 2, "tp")
            .call("out", WAIT, type("float32", 4, 2), ref("g"))
            .build("out");
    Path gsFile = dir.resolve("gs.json");
    Path gdFile = dir.resolve("gd.json");
    Path ri = dir.resolve("ri.json");
    GraphJson.write(gs, gsFile);
    GraphJson.write(Graphs.distributed(rank, rank), gdFile);
    Files.writeString(
        ri,
        "{\"format\": \"entangle-relation/1\", \"relations\": [{\"gs\": \"x\", \"shard\": 0},"
            + " {\"gs\": \"w\", \"replicate\": true}]}");
    return CliRun.check(gsFile, gdFile, ri);
  }

  @Test
  void rowsComputedFromTheInputAsGivenRefine() throws IOException {
    CliRun run = check(1.0);
    assertEquals(0, run.exitCode(), run::toString);
  }

  @Test
  void rowsEachTwiceTheSequentialBlockDoNot() throws IOException {
    CliRun run = check(2.0);
    assertEquals(1, run.exitCode(), run::toString);
    assertTrue(run.out().startsWith("not-refined"), run.out());
    assertTrue(run.out().contains("operator: y (aten.mm.default)"), run.out());
  }
}
