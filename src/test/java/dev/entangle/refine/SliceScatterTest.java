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
 * {@code slice_scatter(x, src, dim, start, end)} is lowered to x with that slice replaced by src: a
 * rank that concatenates x's outer slices around src computes the same tensor (the expectation
 * holds), one that puts src elsewhere does not.
 */
class SliceScatterTest {
  @TempDir Path tmp;

  private CliRun check(int from) throws IOException {
    String gs =
        HandGraphs.graph(
            List.of(
                input("x", "[4, 5]"),
                input("s", "[4, 2]"),
                call(
                    "b",
                    "aten.slice_scatter.default",
                    "[" + ref("x") + ", " + ref("s") + ", 1, -4, 3]",
                    "[4, 5]")),
            "b");
    String gd =
        HandGraphs.graph(
            List.of(
                input("x", "[4, 5]"),
                input("s", "[4, 2]"),
                call(
                    "l",
                    "aten.slice.Tensor",
                    "[" + ref("x") + ", 1, 0, " + from + "]",
                    "[4, " + from + "]"),
                call(
                    "r",
                    "aten.slice.Tensor",
                    "[" + ref("x") + ", 1, " + (from + 2) + ", 5]",
                    "[4, " + (3 - from) + "]"),
                call(
                    "cat",
                    "aten.cat.default",
                    "[[" + ref("l") + ", " + ref("s") + ", " + ref("r") + "], 1]",
                    "[4, 5]")),
            "cat");
    Path ri =
        Files.writeString(
            tmp.resolve("ri.json"),
            "{\"format\": \"entangle-relation/1\", \"relations\": [{\"gs\": \"x\", \"gd\":"
                + " \"r0.x\"}, {\"gs\": \"s\", \"gd\": \"r0.s\"}], \"expect\": [{\"gs\": \"b\","
                + " \"gd\": \"r0.cat\"}]}");
    return CliRun.check(
        Files.writeString(tmp.resolve("gs.json"), gs),
        Files.writeString(tmp.resolve("gd.json"), HandGraphs.distributed(List.of(gd))),
        ri);
  }

  @Test
  void theSliceIsReplacedBetweenTheOuterSlices() throws IOException {
    CliRun run = check(1);
    assertEquals(0, run.exitCode(), run::transcript);
    assertTrue(run.out().contains("b: r0.cat"), run::transcript);
  }

  @Test
  void srcPutAtAnotherOffsetIsNotTheScatter() throws IOException {
    CliRun run = check(2);
    assertEquals(1, run.exitCode(), run::transcript);
    assertTrue(run.out().startsWith("expectation-violated"), run::transcript);
  }
}
