package dev.entangle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code entangle import --relation}: the relation of an HLO module's parameter shardings, written
 * beside G_s, checks the partitioned program (src/test/resources/hlo-sharding, dumped by the pinned
 * JAX through {@code scripts/make-hlo-sharding-testdata}).
 */
class ImportRelationCommandTest {
  private static final Path DATA = Path.of("src/test/resources/hlo-sharding");

  @TempDir Path dir;

  @Test
  void theShardingsRelationChecksThePartitionedProgram() throws IOException {
    Path gs = dir.resolve("gs.json");
    Path ri = dir.resolve("ri.json");
    Path gd = dir.resolve("gd.json");
    CliRun run =
        CliRun.run("import", DATA.resolve("column-split-2.hlo"), "-o", gs, "--relation", ri);
    assertEquals(0, run.exitCode(), run::transcript);
    assertTrue(run.out().contains("wrote " + ri), run::transcript);
    assertTrue(Files.readString(ri).contains("\"shard\" : 1"), Files.readString(ri));
    run =
        CliRun.run(
            "import", DATA.resolve("column-split-2.partitioned.hlo"), "--ranks", 2, "-o", gd);
    assertEquals(0, run.exitCode(), run::transcript);
    CliRun check = CliRun.check(gs, gd, ri);
    assertEquals(0, check.exitCode(), check::transcript);
    assertTrue(
        check.out().contains("tanh.0: concat(r0.tanh.2, r1.tanh.2, dim=1)"), check::transcript);
  }

  @Test
  void aShardingThatForgetsTheSplitDimDoesNotFitThePartitionedWeights() throws IOException {
    String text =
        Files.readString(DATA.resolve("column-split-2.hlo"))
            .replace(
                "sharding={devices=[1,2]<=[2]}, metadata={op_name=\"w\"}",
                "sharding={replicated}, metadata={op_name=\"w\"}");
    Path hlo = Files.writeString(dir.resolve("forgot.hlo"), text);
    Path gs = dir.resolve("gs.json");
    Path ri = dir.resolve("ri.json");
    Path gd = dir.resolve("gd.json");
    assertEquals(0, CliRun.run("import", hlo, "-o", gs, "--relation", ri).exitCode());
    CliRun.run("import", DATA.resolve("column-split-2.partitioned.hlo"), "--ranks", 2, "-o", gd);
    CliRun.check(gs, gd, ri).assertInputError("ri.json", "gs \"w\"", "shape");
  }

  @Test
  void theRelationIsReadFromOneModuleBeforePartitioning() {
    Path hlo = DATA.resolve("column-split-2.partitioned.hlo");
    CliRun.run(
            "import",
            hlo,
            "--ranks",
            2,
            "-o",
            dir.resolve("gd.json"),
            "--relation",
            dir.resolve("ri.json"))
        .assertInputError("--relation reads the shardings of one module before partitioning");
    CliRun.run(
            "import",
            Path.of("src/test/resources/pt2/reduce.pt2"),
            "-o",
            dir.resolve("g.json"),
            "--relation",
            dir.resolve("ri.json"))
        .assertInputError("--relation applies to an XLA HLO module");
  }
}
