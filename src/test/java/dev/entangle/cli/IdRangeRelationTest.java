package dev.entangle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A relation's {@code "in_range"}: how checking reads it, and the errors it gives. */
class IdRangeRelationTest {
  private static final Path CASE = CliRun.PROJECT_ROOT.resolve("examples/vocab-embedding-tp2");

  @TempDir Path dir;

  private CliRun check(String relations) throws IOException {
    Path ri = dir.resolve("ri.json");
    Files.writeString(
        ri, "{\"format\": \"entangle-relation/1\", \"relations\": [" + relations + "]}");
    return CliRun.check(CASE.resolve("gs.json"), CASE.resolve("gd.json"), ri);
  }

  @Test
  void aStatedRangeKeepsACorrectModelProved() throws IOException {
    CliRun run =
        check(
            "{\"gs\": \"ids\", \"replicate\": true, \"in_range\": [0, 16]},"
                + " {\"gs\": \"weight\", \"shard\": 0}");
    assertEquals(0, run.exitCode(), run.err());
    assertEquals("refines", run.verdictLine());
  }

  @Test
  void aRangeOfAComputedExpressionIsAnInputError() throws IOException {
    CliRun run =
        check(
            "{\"gs\": \"ids\", \"gd\": \"sum(r0.ids, r1.ids)\", \"in_range\": [0, 16]},"
                + " {\"gs\": \"weight\", \"shard\": 0}");
    assertEquals(2, run.exitCode(), run.out());
    assertTrue(
        run.err()
            .contains(
                "relations[0] (gs \"ids\"): \"in_range\" applies to an entry whose G_d expression"
                    + " only rearranges G_d tensors"),
        run.err());
  }

  @Test
  void rangesWithNoValueInCommonAreAnInputError() throws IOException {
    CliRun run =
        check(
            "{\"gs\": \"ids\", \"gd\": \"r0.ids\", \"in_range\": [0, 4]},"
                + " {\"gs\": \"ids\", \"gd\": \"r0.ids\", \"in_range\": [8, 16]},"
                + " {\"gs\": \"weight\", \"shard\": 0}");
    assertEquals(2, run.exitCode(), run.out());
    assertTrue(
        run.err().contains("\"in_range\" [8, 16) and an earlier [0, 4) of the same G_d tensor"),
        run.err());
  }
}
