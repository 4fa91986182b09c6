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
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replicated table every layer slices (a rotary cache) over a sequence-sharded activation:
 * exploration builds only on related values near each operator, not on every earlier layer's, and
 * the proof still goes through at depth; a wrong offset in one deep layer is found at that layer.
 */
class SharedTableDepthTest {
  @TempDir Path tmp;

  /** {@code layers} times: x = x * table[start:start+4] + x, over a [4, 4] shard. */
  private static String model(int layers, int seq, int start, int wrongLayer, int wrongStart) {
    List<String> nodes = new ArrayList<>();
    nodes.add(input("x", "[" + seq + ", 4]"));
    nodes.add(input("table", "[16, 4]"));
    String x = "x";
    for (int l = 0; l < layers; l++) {
      int s = l == wrongLayer ? wrongStart : start;
      nodes.add(
          call(
              "t" + l,
              "aten.slice.Tensor",
              "[" + ref("table") + ", 0, " + s + ", " + (s + seq) + "]",
              "[" + seq + ", 4]"));
      nodes.add(
          call(
              "m" + l,
              "aten.mul.Tensor",
              "[" + ref(x) + ", " + ref("t" + l) + "]",
              "[" + seq + ", 4]"));
      nodes.add(
          call(
              "a" + l,
              "aten.add.Tensor",
              "[" + ref("m" + l) + ", " + ref(x) + "]",
              "[" + seq + ", 4]"));
      x = "a" + l;
    }
    return HandGraphs.graph(nodes, x);
  }

  private CliRun check(int layers, int wrongLayer) throws IOException {
    Path dir = Files.createTempDirectory(tmp, "case");
    return HandGraphs.check(
        dir,
        model(layers, 8, 0, -1, 0),
        List.of(model(layers, 4, 0, -1, 0), model(layers, 4, 4, wrongLayer, 0)),
        "{\"gs\": \"x\", \"shard\": 0}, {\"gs\": \"table\", \"replicate\": true}");
  }

  @Test
  void aDeepModelSlicingOneSharedTableRefines() throws IOException {
    CliRun run = check(12, -1);
    assertEquals(0, run.exitCode(), run::transcript);
    assertTrue(run.out().startsWith("refines"), run::transcript);
  }

  @Test
  void aWrongOffsetInOneDeepLayerIsFoundThere() throws IOException {
    CliRun run = check(12, 9);
    assertEquals(1, run.exitCode(), run::transcript);
    assertTrue(run.out().startsWith("not-refined"), run::transcript);
    assertTrue(run.out().contains("operator: m9 (aten.mul.Tensor)"), run::transcript);
  }
}
