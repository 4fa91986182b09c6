package dev.entangle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A fused gate/up weight whose ranks each hold their block of both halves, related as a user writes
 * it: the ranks' weights concatenated, regrouped by a reshape and a transpose so that the halves
 * come first. The layout procedure finds its clean form, the concat of the ranks' slices ({@code
 * examples/fused-swiglu-tp*} relate the slices themselves, as {@code draft-relation} writes them).
 */
class FusedWeightRelationTest {
  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(ints = {2, 4})
  void aFusedWeightRelatedByReshapeAndTransposeRefines(int n) throws IOException {
    Path c = Path.of("examples", "fused-swiglu-tp" + n);
    int hidden = 8;
    int part = 12 / n;
    StringBuilder ranks = new StringBuilder();
    for (int k = 0; k < n; k++) {
      ranks.append(k == 0 ? "" : ", ").append("r").append(k).append(".gate_up.weight");
    }
    String fused =
        "reshape(transpose(reshape(concat("
            + ranks
            + ", dim=0), ["
            + n
            + ", 2, "
            + part
            + ", "
            + hidden
            + "]), 0, 1), [24, "
            + hidden
            + "])";
    Path ri =
        Files.writeString(
            dir.resolve("ri.json"),
            "{\"format\": \"entangle-relation/1\", \"relations\": ["
                + "{\"gs\": \"x\", \"replicate\": true},"
                + "{\"gs\": \"gate_up.weight\", \"gd\": \""
                + fused
                + "\"},"
                + "{\"gs\": \"down.weight\", \"shard\": 1}]}");
    CliRun run = CliRun.check(c.resolve("gs.json"), c.resolve("gd.json"), ri);
    assertEquals(0, run.exitCode(), run::transcript);
    assertTrue(run.out().contains("_unsafe_view_1: r0.wait_tensor"), run::transcript);
  }
}
