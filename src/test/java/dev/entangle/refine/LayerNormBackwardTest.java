package dev.entangle.refine;

import static dev.entangle.refine.HandGraphs.call;
import static dev.entangle.refine.HandGraphs.input;
import static dev.entangle.refine.HandGraphs.ref;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.cli.CliRun;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Layer-norm gradients: G_s computes them with {@code native_layer_norm_backward} over 8 rows, each
 * G_d rank with apex's {@code fused_layer_norm_affine_bwd} over its 4 rows (saved statistics flat,
 * argument order of its own), then all-reduces the weight and bias gradients. The two kernels agree
 * only if both are read with the right argument at each position.
 */
class LayerNormBackwardTest {
  @TempDir Path tmp;

  private static String tuple(String name, String target, String args, int rows) {
    return "{\"name\": \""
        + name
        + "\", \"op\": \"call_function\", \"target\": \""
        + target
        + "\", \"args\": "
        + args
        + ", \"meta\": {\"tuple\": [{\"shape\": ["
        + rows
        + ", 4], \"dtype\": \"float32\"}, {\"shape\": [4],"
        + " \"dtype\": \"float32\"}, {\"shape\": [4], \"dtype\": \"float32\"}]}}";
  }

  /** The bwd call and its three getitems (bwd_0, bwd_1, bwd_2). */
  private static List<String> gradients(String target, String args, int rows) {
    List<String> nodes = new ArrayList<>(List.of(tuple("bwd", target, args, rows)));
    String[] shapes = {"[" + rows + ", 4]", "[4]", "[4]"};
    for (int i = 0; i < 3; i++) {
      nodes.add(call("bwd_" + i, "getitem", "[" + ref("bwd") + ", " + i + "]", shapes[i]));
    }
    return nodes;
  }

  private static String gs() {
    List<String> nodes =
        new ArrayList<>(
            List.of(
                input("dy", "[8, 4]"),
                input("x", "[8, 4]"),
                input("mean", "[8, 1]"),
                input("rstd", "[8, 1]"),
                input("w", "[4]"),
                input("b", "[4]")));
    nodes.addAll(
        gradients(
            "aten.native_layer_norm_backward.default",
            "["
                + ref("dy")
                + ", "
                + ref("x")
                + ", [4], "
                + ref("mean")
                + ", "
                + ref("rstd")
                + ", "
                + ref("w")
                + ", "
                + ref("b")
                + ", [true, true, true]]",
            8));
    return HandGraphs.graph(nodes, "bwd_0", "bwd_1", "bwd_2");
  }

  private static String rank(String meanArg, String invvarArg) {
    List<String> nodes =
        new ArrayList<>(
            List.of(
                input("dy", "[4, 4]"),
                input("x", "[4, 4]"),
                input("mean", "[4]"),
                input("invvar", "[4]"),
                input("w", "[4]"),
                input("b", "[4]")));
    nodes.addAll(
        gradients(
            "apex.fused_layer_norm_affine_bwd.default",
            "["
                + ref("dy")
                + ", "
                + ref(meanArg)
                + ", "
                + ref(invvarArg)
                + ", "
                + ref("x")
                + ", [4], "
                + ref("w")
                + ", "
                + ref("b")
                + ", 1e-05]",
            4));
    nodes.add(
        call(
            "dw",
            "_c10d_functional.all_reduce.default",
            "[" + ref("bwd_1") + ", \"sum\", \"tp\"]",
            "[4]"));
    nodes.add(
        call(
            "db",
            "_c10d_functional.all_reduce.default",
            "[" + ref("bwd_2") + ", \"sum\", \"tp\"]",
            "[4]"));
    return HandGraphs.graph(nodes, "bwd_0", "dw", "db");
  }

  private CliRun check(String rank1Mean, String rank1Invvar) throws IOException {
    return HandGraphs.check(
        tmp,
        gs(),
        List.of(rank("mean", "invvar"), rank(rank1Mean, rank1Invvar)),
        "{\"gs\": \"dy\", \"shard\": 0}, {\"gs\": \"x\", \"shard\": 0}, {\"gs\": \"w\", \"replicate\": true},"
            + " {\"gs\": \"b\", \"replicate\": true},"
            + " {\"gs\": \"mean\", \"gd\": \"unsqueeze(concat(r0.mean, r1.mean, dim=0), 1)\"},"
            + " {\"gs\": \"rstd\", \"gd\": \"unsqueeze(concat(r0.invvar, r1.invvar, dim=0), 1)\"}");
  }

  @Test
  void apexGradientsOnShardsRefineTheSequentialOnes() throws IOException {
    CliRun run = check("mean", "invvar");
    assertEquals(0, run.exitCode(), run::transcript);
    assertTrue(run.out().contains("bwd_0: concat(r0.bwd_0, r1.bwd_0, dim=0)"), run::transcript);
    assertTrue(
        run.out().contains("bwd_1: r0.dw") || run.out().contains("bwd_1: r1.dw"), run::transcript);
    assertTrue(
        run.out().contains("bwd_2: r0.db") || run.out().contains("bwd_2: r1.db"), run::transcript);
  }

  @Test
  void statisticsSwappedOnOneRankDoNotRefine() throws IOException {
    CliRun run = check("invvar", "mean");
    assertEquals(1, run.exitCode(), run::transcript);
    assertTrue(run.out().startsWith("not-refined"), run::transcript);
    assertTrue(
        run.out().contains("operator: bwd (aten.native_layer_norm_backward.default)"),
        run::transcript);
  }
}
