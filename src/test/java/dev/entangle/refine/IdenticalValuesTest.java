package dev.entangle.refine;

import static dev.entangle.refine.HandGraphs.call;
import static dev.entangle.refine.HandGraphs.input;
import static dev.entangle.refine.HandGraphs.ref;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.core.CoreProgram;
import dev.entangle.core.OpTable;
import dev.entangle.graph.GraphJson;
import dev.entangle.lower.Lowering;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Copies of one computation in G_d are one value to the checker: the same slice taken twice, a
 * value passed on unchanged, the same all-reduce on every rank; inputs and values without defined
 * contents never are.
 */
class IdenticalValuesTest {
  @TempDir Path tmp;

  private CoreProgram gd;
  private GdModel model;

  private static String rank() {
    return HandGraphs.graph(
        List.of(
            input("x", "[8, 4]"),
            input("y", "[8, 4]"),
            input("t", "[16, 4]"),
            call("s1", "aten.slice.Tensor", "[" + ref("t") + ", 0, 0, 8]", "[8, 4]"),
            call("s2", "aten.slice.Tensor", "[" + ref("t") + ", 0, 0, 8]", "[8, 4]"),
            call("s3", "aten.slice.Tensor", "[" + ref("t") + ", 0, 8, 16]", "[8, 4]"),
            call("m1", "aten.mul.Tensor", "[" + ref("x") + ", " + ref("s1") + "]", "[8, 4]"),
            call("m2", "aten.mul.Tensor", "[" + ref("x") + ", " + ref("s2") + "]", "[8, 4]"),
            call("c", "aten.clone.default", "[" + ref("x") + "]", "[8, 4]"),
            call("e1", "aten.empty.memory_format", "[[8, 4]]", "[8, 4]"),
            call("e2", "aten.empty.memory_format", "[[8, 4]]", "[8, 4]"),
            call(
                "all_reduce",
                "_c10d_functional.all_reduce.default",
                "[" + ref("m2") + ", \"sum\", \"tp\"]",
                "[8, 4]"),
            call(
                "wait_tensor",
                "_c10d_functional.wait_tensor.default",
                "[" + ref("all_reduce") + "]",
                "[8, 4]")),
        "wait_tensor",
        "e1",
        "e2",
        "c",
        "s3",
        "m1");
  }

  @BeforeEach
  void lower() throws IOException {
    Path file =
        Files.writeString(tmp.resolve("gd.json"), HandGraphs.distributed(List.of(rank(), rank())));
    gd = Lowering.distributed(GraphJson.readDistributed(file), new OpTable());
    model = new GdModel(gd);
  }

  private int id(int rank, String name) {
    return gd.id(rank, name);
  }

  private int rep(int rank, String name) {
    return model.rep(id(rank, name));
  }

  @Test
  void theSameSliceTakenTwiceIsOneValueAndDependsOnItsSources() {
    assertEquals(rep(0, "s1"), rep(0, "s2"));
    assertNotEquals(rep(0, "s1"), rep(0, "s3"));
    assertNotEquals(rep(0, "s1"), rep(1, "s1"), "each rank slices its own input");
    assertEquals(id(0, "m1"), rep(0, "m2"), "equal operands make equal products; m1 is an output");
    assertArrayEquals(new int[] {id(0, "t")}, model.deps(id(0, "s2")));
  }

  @Test
  void aValuePassedOnUnchangedIsTheInputItPasses() {
    assertEquals(id(0, "x"), rep(0, "c"));
    assertTrue(model.available(rep(0, "c")));
  }

  @Test
  void valuesWithoutContentsAreNeverMerged() {
    assertNotEquals(rep(0, "e1"), rep(0, "e2"));
  }

  @Test
  void everyRanksAllReduceIsOneOutputDefinedByTheCollective() {
    int ar = rep(0, "wait_tensor");
    assertEquals(id(0, "wait_tensor"), ar, "an output represents its copies");
    assertEquals(ar, rep(1, "wait_tensor"));
    assertEquals(ar, rep(1, "all_reduce"));
    assertEquals(id(0, "all_reduce"), model.definer(ar), "not the wait that passes it on");
    int[] deps = model.deps(ar);
    Arrays.sort(deps);
    assertArrayEquals(new int[] {id(0, "m1"), id(1, "m1")}, deps);
    for (int r = 0; r < 2; r++) {
      int m = id(r, "m1");
      assertTrue(
          Arrays.stream(model.users(m)).anyMatch(u -> u == ar),
          "rank " + r + "'s product feeds it");
    }
  }
}
