package dev.entangle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code entangle import} of torch.export archives (src/test/resources/pt2, written by {@code
 * scripts/make-pt2-testdata}): one linear layer as G_s and its row-parallel ranks as G_d, checked.
 */
class ImportPt2CommandTest {
  private static final Path PT2 = Path.of("src/test/resources/pt2");
  private static final String INPUTS =
      "\"relations\": [{\"gs\": \"fc.weight\", \"shard\": 1}, {\"gs\": \"x\", \"shard\": 1}]";

  @TempDir Path dir;

  private Path imported(String out, String... archives) {
    Object[] args = new Object[archives.length + 3];
    args[0] = "import";
    for (int i = 0; i < archives.length; i++) {
      args[i + 1] = PT2.resolve(archives[i]);
    }
    args[archives.length + 1] = "-o";
    args[archives.length + 2] = dir.resolve(out);
    CliRun run = CliRun.run(args);
    assertEquals(0, run.exitCode(), run::transcript);
    assertTrue(run.out().contains("wrote "), run::transcript);
    return dir.resolve(out);
  }

  private Path relation(String expect) throws IOException {
    return Files.writeString(
        dir.resolve("ri.json"),
        "{\"format\": \"entangle-relation/1\", "
            + INPUTS
            + ", \"expect\": [{\"gs\": \"mm\", \"gd\": \""
            + expect
            + "\"}]}");
  }

  @Test
  void theRowParallelRanksRefineTheLinearLayer() throws IOException {
    Path gs = imported("gs.json", "reduce.pt2");
    Path gd = imported("gd.json", "reduce-rank0.pt2", "reduce-rank1.pt2");
    CliRun run = CliRun.check(gs, gd, relation("r0.wait_tensor_1"));
    assertEquals(0, run.exitCode(), run::transcript);
    assertEquals("refines", run.verdictLine());
  }

  @Test
  void ranksThatForgetTheAllReduceViolateTheReplicatedOutput() throws IOException {
    Path gs = imported("gs.json", "reduce.pt2");
    Path gd = imported("gd.json", "unreduced-rank.pt2", "unreduced-rank.pt2");
    CliRun run = CliRun.check(gs, gd, relation("r0.mm"));
    assertEquals(1, run.exitCode(), run::transcript);
    assertEquals("expectation-violated", run.verdictLine());
    assertTrue(run.out().contains("operator: mm (aten.mm.default)"), run::transcript);
    assertTrue(run.out().contains("mm equals sum(r0.mm, r1.mm)"), run::transcript);
  }

  @Test
  void formatPt2OnAFileThatIsNoArchive() throws IOException {
    Path text = Files.writeString(dir.resolve("model.pt2"), "HloModule m\n");
    CliRun.run("import", text, "--format", "pt2", "-o", dir.resolve("g.json"))
        .assertInputError("model.pt2: is not a zip archive", "torch.export.save");
  }

  @Test
  void optionsOfOtherFormatsAreRefused() {
    Path archive = PT2.resolve("reduce.pt2");
    CliRun.run("import", archive, "--ranks", "2", "-o", dir.resolve("g.json"))
        .assertInputError("--ranks applies to XLA HLO modules");
    CliRun.run("import", archive, "--constant", "c=1", "-o", dir.resolve("g.json"))
        .assertInputError("--constant and --schemas apply to printed torch.fx code");
    CliRun.run("import", archive, "--group", "0=0,3", "-o", dir.resolve("g.json"))
        .assertInputError("--group 0 names rank 3", "give one archive per rank");
  }
}
