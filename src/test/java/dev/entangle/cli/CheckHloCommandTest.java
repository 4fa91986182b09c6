package dev.entangle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code entangle check} reads XLA HLO text modules as G_s and G_d itself, as {@code entangle
 * import} would convert them: an SPMD G_d runs on {@code --ranks N} ranks, or on as many as its
 * header's {@code num_partitions} says.
 */
class CheckHloCommandTest {
  private static final Path EXAMPLES = Path.of("examples");
  private static final Path SHARDING = Path.of("src/test/resources/hlo-sharding");

  @TempDir Path dir;

  @Test
  void hloModulesCheckAsTheirImportedGraphsDo() {
    Path c = EXAMPLES.resolve("hlo-linear-tp2");
    CliRun direct =
        CliRun.check(c.resolve("gs.hlo"), c.resolve("gd.hlo"), c.resolve("ri.json"), "--ranks", 2);
    CliRun imported =
        CliRun.check(c.resolve("gs.json"), c.resolve("gd.json"), c.resolve("ri.json"));
    assertEquals(0, direct.exitCode(), direct::transcript);
    assertEquals("refines", direct.verdictLine());
    assertEquals(relationLines(imported.out()), relationLines(direct.out()), direct::transcript);
  }

  @Test
  void aBugInAnHloProgramIsFoundAtItsOperator() {
    Path c = EXAMPLES.resolve("bug-hlo-linear-tp2-bias-before-allreduce");
    CliRun run =
        CliRun.check(c.resolve("gs.hlo"), c.resolve("gd.hlo"), c.resolve("ri.json"), "--ranks", 2);
    assertEquals(1, run.exitCode(), run::transcript);
    assertEquals("not-refined", run.verdictLine());
    assertTrue(run.out().contains("operator: add.6"), run::transcript);
  }

  @Test
  void theRanksComeFromTheModulesHeaderWhenItNamesThem() throws IOException {
    Path gs = dir.resolve("gs.json");
    Path ri = dir.resolve("ri.json");
    CliRun imported =
        CliRun.run("import", SHARDING.resolve("column-split-2.hlo"), "-o", gs, "--relation", ri);
    assertEquals(0, imported.exitCode(), imported::transcript);
    CliRun run =
        CliRun.check(
            SHARDING.resolve("column-split-2.hlo"),
            SHARDING.resolve("column-split-2.partitioned.hlo"),
            ri);
    assertEquals(0, run.exitCode(), run::transcript);
    assertTrue(run.out().contains("tanh.0: concat(r0.tanh.2, r1.tanh.2, dim=1)"), run::transcript);
    CliRun wrong =
        CliRun.check(
            SHARDING.resolve("column-split-2.hlo"),
            SHARDING.resolve("column-split-2.partitioned.hlo"),
            ri,
            "--ranks",
            4);
    wrong.assertInputError("column-split-2.partitioned.hlo:1", "runs on 2 devices", "--ranks 2");
  }

  @Test
  void aModuleThatDoesNotSayItsRanksAsksForThem() {
    Path c = EXAMPLES.resolve("hlo-linear-tp2");
    CliRun.check(c.resolve("gs.hlo"), c.resolve("gd.hlo"), c.resolve("ri.json"))
        .assertInputError("gd.hlo:1", "does not say how many ranks", "--ranks N");
  }

  @Test
  void ranksApplyToAnHloDistributedProgramOnly() {
    Path c = EXAMPLES.resolve("hlo-linear-tp2");
    CliRun.check(c.resolve("gs.json"), c.resolve("gd.json"), c.resolve("ri.json"), "--ranks", 2)
        .assertInputError("--ranks 2", "gd.json", "Leave --ranks out");
  }

  @Test
  void moreRanksThanSupportedAreRefused() {
    Path c = EXAMPLES.resolve("hlo-linear-tp2");
    CliRun.check(
            c.resolve("gs.hlo"), c.resolve("gd.hlo"), c.resolve("ri.json"), "--ranks", 1_000_000)
        .assertInputError("--ranks 1000000", "at most 4096");
  }

  @Test
  void anHloModuleAfterALongCommentIsStillToldByItsFirstToken() throws IOException {
    Path c = EXAMPLES.resolve("hlo-linear-tp2");
    Path gs = dir.resolve("gs.hlo");
    Files.writeString(
        gs,
        "// exported by a test\n/* a block\n comment */\n" + Files.readString(c.resolve("gs.hlo")));
    CliRun run = CliRun.check(gs, c.resolve("gd.hlo"), c.resolve("ri.json"), "--ranks", 2);
    assertEquals(0, run.exitCode(), run::transcript);
  }

  /** The output relation's lines of a text report. */
  private static String relationLines(String out) {
    int at = out.indexOf("output relation");
    int end = out.indexOf("checked ", at);
    return out.substring(at, end);
  }
}
