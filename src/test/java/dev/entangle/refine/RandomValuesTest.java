package dev.entangle.refine;

import static dev.entangle.refine.HandGraphs.call;
import static dev.entangle.refine.HandGraphs.input;
import static dev.entangle.refine.HandGraphs.ref;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.cli.CliRun;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random samples are never taken as equal: each rank (and G_s) draws its own, so a replicated input
 * plus noise is not the same on two ranks, however alike their graphs are.
 */
class RandomValuesTest {
  @TempDir Path tmp;

  private static String noisy(String sampler) {
    return HandGraphs.graph(
        List.of(
            input("x", "[4, 4]"),
            call("r", sampler, "[" + ref("x") + "]", "[4, 4]"),
            call("y", "aten.add.Tensor", "[" + ref("x") + ", " + ref("r") + "]", "[4, 4]")),
        "y");
  }

  @Test
  void noiseAddedOnEachRankIsNotTheSequentialNoise() throws IOException {
    for (String sampler :
        List.of("aten.rand_like.default", "aten.randn_like.default", "aten.bernoulli.default")) {
      Path dir = Files.createTempDirectory(tmp, "case");
      CliRun run =
          HandGraphs.check(
              dir,
              noisy(sampler),
              List.of(noisy(sampler), noisy(sampler)),
              "{\"gs\": \"x\", \"replicate\": true}");
      assertEquals(1, run.exitCode(), run::transcript);
      assertTrue(run.out().startsWith("not-refined"), run::transcript);
      assertTrue(run.out().contains("operator: y (aten.add.Tensor)"), run::transcript);
    }
  }
}
