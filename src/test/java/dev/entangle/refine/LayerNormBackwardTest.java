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
 * Layer-norm gradients: G_s computes them with {@code native_layer_norm_backward} over 8 rows,
 * each G_d rank with apex's {@code fused_layer_norm_affine_bwd} over its 4 rows (saved statistics
 * flat, argument order of its own), then all-reduces the weight and bias gradients. The two
 * kernels agree only if both are read with the right argument at each position.
 */
class LayerNormBackwardTest {
  @TempDir Path tmp;

  private static String input(String name, String shape) {
    return "{\"name\": \"" + name + "\", \"op\": \"placeholder\", \"target\": \"" + name
        + "\", \"meta\": {\"shape\": " + shape + ", \"dtype\": \"float32\"}}";
  }

  private static String call(String name, String target, String args, String shape) {
    return "{\"name\": \"" + name + "\", \"op\": \"call_function\", \"target\": \"" + target + "\", \"args\": "
        + args + ", \"meta\": {\"shape\": " + shape + ", \"dtype\": \"float32\"}}";
  }

  private static String tuple(String name, String target, String args) {
    return "{\"name\": \"" + name + "\", \"op\": \"call_function\", \"target\": \"" + target + "\", \"args\": "
        + args + ", \"meta\": {\"tuple\": [{\"shape\": [ROWS, 4], \"dtype\": \"float32\"}, {\"shape\": [4], \"dtype\":"
        + " \"float32\"}, {\"shape\": [4], \"dtype\": \"float32\"}]}}";
  }

  private static String getitems(String of, String... extra) {
    StringBuilder sb = new StringBuilder();
    String[] shapes = {"[ROWS, 4]", "[4]", "[4]"};
    for (int i = 0; i < 3; i++) {
      sb.append(", ").append(call(of + "_" + i, "getitem", "[{\"node\": \"" + of + "\"}, " + i + "]", shapes[i]));
    }
    for (String e : extra) {
      sb.append(", ").append(e);
    }
    return sb.toString();
  }

  private static String n(String name) {
    return "{\"node\": \"" + name + "\"}";
  }

  private static String gs() {
    String nodes = input("dy", "[8, 4]") + ", " + input("x", "[8, 4]") + ", " + input("mean", "[8, 1]") + ", "
        + input("rstd", "[8, 1]") + ", " + input("w", "[4]") + ", " + input("b", "[4]") + ", "
        + tuple("bwd", "aten.native_layer_norm_backward.default", "[" + n("dy") + ", " + n("x") + ", [4], "
            + n("mean") + ", " + n("rstd") + ", " + n("w") + ", " + n("b") + ", [true, true, true]]")
        + getitems("bwd");
    return ("{\"format\": \"entangle-fx/1\", \"nodes\": [" + nodes + ", {\"name\": \"output\", \"op\": \"output\","
        + " \"target\": \"output\", \"args\": [[" + n("bwd_0") + ", " + n("bwd_1") + ", " + n("bwd_2") + "]]}]}")
        .replace("ROWS", "8");
  }

  private static String rank(String meanArg, String invvarArg) {
    String nodes = input("dy", "[4, 4]") + ", " + input("x", "[4, 4]") + ", " + input("mean", "[4]") + ", "
        + input("invvar", "[4]") + ", " + input("w", "[4]") + ", " + input("b", "[4]") + ", "
        + tuple("bwd", "apex.fused_layer_norm_affine_bwd.default", "[" + n("dy") + ", " + n(meanArg) + ", "
            + n(invvarArg) + ", " + n("x") + ", [4], " + n("w") + ", " + n("b") + ", 1e-05]")
        + getitems("bwd",
            call("dw", "_c10d_functional.all_reduce.default", "[" + n("bwd_1") + ", \"sum\", \"tp\"]", "[4]"),
            call("db", "_c10d_functional.all_reduce.default", "[" + n("bwd_2") + ", \"sum\", \"tp\"]", "[4]"));
    return ("{\"format\": \"entangle-fx/1\", \"nodes\": [" + nodes + ", {\"name\": \"output\", \"op\": \"output\","
        + " \"target\": \"output\", \"args\": [[" + n("bwd_0") + ", " + n("dw") + ", " + n("db") + "]]}]}")
        .replace("ROWS", "4");
  }

  private CliRun check(String rank1Mean, String rank1Invvar) throws IOException {
    Path gs = Files.writeString(tmp.resolve("gs.json"), gs());
    Path gd = Files.writeString(tmp.resolve("gd.json"), "{\"format\": \"entangle-fx/1\", \"world_size\": 2, \"ranks\": ["
        + rank("mean", "invvar") + ", " + rank(rank1Mean, rank1Invvar) + "], \"process_groups\": {\"tp\": [0, 1]}}");
    Path ri = Files.writeString(tmp.resolve("ri.json"), "{\"format\": \"entangle-relation/1\", \"relations\": ["
        + "{\"gs\": \"dy\", \"shard\": 0}, {\"gs\": \"x\", \"shard\": 0}, {\"gs\": \"w\", \"replicate\": true},"
        + " {\"gs\": \"b\", \"replicate\": true},"
        + " {\"gs\": \"mean\", \"gd\": \"unsqueeze(concat(r0.mean, r1.mean, dim=0), 1)\"},"
        + " {\"gs\": \"rstd\", \"gd\": \"unsqueeze(concat(r0.invvar, r1.invvar, dim=0), 1)\"}]}");
    return CliRun.check(gs, gd, ri);
  }

  @Test
  void apexGradientsOnShardsRefineTheSequentialOnes() throws IOException {
    CliRun run = check("mean", "invvar");
    assertEquals(0, run.exitCode(), run::transcript);
    assertTrue(run.out().contains("bwd_0: concat(r0.bwd_0, r1.bwd_0, dim=0)"), run::transcript);
    assertTrue(run.out().contains("bwd_1: r0.dw") || run.out().contains("bwd_1: r1.dw"), run::transcript);
    assertTrue(run.out().contains("bwd_2: r0.db") || run.out().contains("bwd_2: r1.db"), run::transcript);
  }

  @Test
  void statisticsSwappedOnOneRankDoNotRefine() throws IOException {
    CliRun run = check("invvar", "mean");
    assertEquals(1, run.exitCode(), run::transcript);
    assertTrue(run.out().startsWith("not-refined"), run::transcript);
    assertTrue(run.out().contains("operator: bwd (aten.native_layer_norm_backward.default)"), run::transcript);
  }
}
