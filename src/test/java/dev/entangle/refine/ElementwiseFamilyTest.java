package dev.entangle.refine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.cli.CliRun;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ATen operators the core language knows only as element-wise (here {@code gelu_backward}) follow
 * every element-wise lemma: sharded operands give a sharded result, and a rank that computes it on
 * the wrong operand does not refine.
 */
class ElementwiseFamilyTest {
  @TempDir Path tmp;

  private static String graph(int rows, String a, String b) {
    String shape = "[" + rows + ", 4]";
    return HandGraphs.graph(
        List.of(
            HandGraphs.input("g", shape),
            HandGraphs.input("x", shape),
            HandGraphs.call(
                "y",
                "aten.gelu_backward.default",
                "[" + HandGraphs.ref(a) + ", " + HandGraphs.ref(b) + "]",
                shape)),
        "y");
  }

  private CliRun check(String rank1First, String rank1Second) throws IOException {
    return HandGraphs.check(
        tmp,
        graph(8, "g", "x"),
        List.of(graph(4, "g", "x"), graph(4, rank1First, rank1Second)),
        "{\"gs\": \"g\", \"shard\": 0}, {\"gs\": \"x\", \"shard\": 0}");
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
