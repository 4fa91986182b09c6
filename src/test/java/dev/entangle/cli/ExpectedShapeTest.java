package dev.entangle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An {@code expect} entry whose G_d tensor has another shape than the G_s value (a rank returning
 * its shard where the whole tensor is expected, an all-gather left out) is the model's violation of
 * the expectation, reported with the shapes, not an error in the relation file.
 */
class ExpectedShapeTest {
  private static final Path MLP = CliRun.PROJECT_ROOT.resolve("examples/mlp-tp2");

  @TempDir Path dir;

  @Test
  void aShardReturnedWhereTheWholeIsExpectedViolatesTheExpectation() throws IOException {
    Path ri =
        Files.writeString(
            dir.resolve("ri.json"),
            Files.readString(MLP.resolve("ri.json"))
                .replaceFirst(
                    "\\]\\s*\\}\\s*$",
                    "], \"expect\": [{\"gs\": \"gelu\", \"gd\": \"r0.gelu\"}]}"));
    CliRun r = CliRun.check(MLP.resolve("gs.json"), MLP.resolve("gd.json"), ri);
    assertEquals(1, r.exitCode(), r::transcript);
    assertEquals("expectation-violated", r.verdictLine(), r::transcript);
    assertTrue(
        r.out().contains("the G_d expression has shape [4, 16], the G_s value [4, 32]"),
        r::transcript);
  }
}
