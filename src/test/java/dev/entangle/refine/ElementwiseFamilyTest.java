package dev.entangle.refine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.cli.CliRun;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ATen operators the core language knows only as element-wise (here {@code gelu_backward}) follow
 * every element-wise lemma: sharded operands give a sharded result, and a rank that computes it on
 * the wrong operand does not refine.
 */
class ElementwiseFamilyTest {
  @TempDir Path tmp;

  private static String node(String name, String target, String args, int rows) {
    return "{\"name\": \"" + name + "\", \"op\": \"call_function\", \"target\": \"" + target + "\", \"args\": "
        + args + ", \"meta\": {\"shape\": [" + rows + ", 4], \"dtype\": \"float32\"}}";
  }

  private static String input(String name, int rows) {
    return "{\"name\": \"" + name + "\", \"op\": \"placeholder\", \"target\": \"" + name
        + "\", \"meta\": {\"shape\": [" + rows + ", 4], \"dtype\": \"float32\"}}";
  }

  private static String graph(int rows, String a, String b) {
    return "{\"format\": \"entangle-fx/1\", \"nodes\": [" + input("g", rows) + ", " + input("x", rows) + ", "
        + node("y", "aten.gelu_backward.default", "[{\"node\": \"" + a + "\"}, {\"node\": \"" + b + "\"}]", rows)
        + ", {\"name\": \"output\", \"op\": \"output\", \"target\": \"output\", \"args\": [[{\"node\": \"y\"}]]}]}";
  }

  private CliRun check(String rank1First, String rank1Second) throws IOException {
    Path gs = Files.writeString(tmp.resolve("gs.json"), graph(8, "g", "x"));
    Path gd = Files.writeString(tmp.resolve("gd.json"), "{\"format\": \"entangle-fx/1\", \"world_size\": 2, \"ranks\": ["
        + graph(4, "g", "x") + ", " + graph(4, rank1First, rank1Second) + "]}");
    Path ri = Files.writeString(tmp.resolve("ri.json"), "{\"format\": \"entangle-relation/1\", \"relations\": ["
        + "{\"gs\": \"g\", \"shard\": 0}, {\"gs\": \"x\", \"shard\": 0}]}");
    return CliRun.check(gs, gd, ri);
  }

  @Test
  void shardedOperandsGiveAShardedResult() throws IOException {
    CliRun run = check("g", "x");
    assertEquals(0, run.exitCode(), run::transcript);
    assertTrue(run.out().contains("y: concat(r0.y, r1.y, dim=0)"), run::transcript);
  }

  @Test
  void swappedOperandsOnOneRankDoNotRefine() throws IOException {
    CliRun run = check("x", "g");
    assertEquals(1, run.exitCode(), run::transcript);
    assertTrue(run.out().startsWith("not-refined"), run::transcript);
    assertTrue(run.out().contains("operator: y (aten.gelu_backward.default)"), run::transcript);
  }
}
