package dev.entangle.refine;

import static dev.entangle.refine.HandGraphs.call;
import static dev.entangle.refine.HandGraphs.input;
import static dev.entangle.refine.HandGraphs.ref;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.cli.CliRun;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code slice_backward}, the gradient of a slice that autograd writes (rotate_half's halves, a
 * sliced rotary table), is lowered to what it computes: zeros of the input's shape with the
 * gradient in the slice, so a rank that pads the gradient with {@code cat} and {@code zeros}
 * computes the same tensor, and one that puts it elsewhere does not.
 */
class SliceBackwardTest {
  @TempDir Path tmp;

  private CliRun check(String sliceArgs, List<String> gdNodes) throws IOException {
    return check(sliceArgs, gdNodes, "cat");
  }

  private CliRun check(String sliceArgs, List<String> gdNodes, String gdOut) throws IOException {
    String gs =
        HandGraphs.graph(
            List.of(
                input("g", "[4, 2]"),
                call(
                    "b",
                    "aten.slice_backward.default",
                    "[" + ref("g") + ", [4, 5], " + sliceArgs + "]",
                    "[4, 5]")),
            "b");
    return HandGraphs.check(
        tmp, gs, List.of(HandGraphs.graph(gdNodes, gdOut)), "{\"gs\": \"g\", \"gd\": \"r0.g\"}");
  }

  private static List<String> padded(int before, int after) {
    return List.of(
        input("g", "[4, 2]"),
        call("z", "aten.zeros.default", "[[4, " + before + "]]", "[4, " + before + "]"),
        call("f", "aten.zeros.default", "[[4, " + after + "]]", "[4, " + after + "]"),
        call(
            "cat",
            "aten.cat.default",
            "[[" + ref("z") + ", " + ref("g") + ", " + ref("f") + "], 1]",
            "[4, 5]"));
  }

  @Test
  void theGradientOfASliceIsTheGradientBetweenZeros() throws IOException {
    CliRun run = check("1, 1, 3, 1", padded(1, 2));
    assertEquals(0, run.exitCode(), run::transcript);
    assertTrue(run.out().contains("b: r0.cat"), run::transcript);
  }

  @Test
  void anOpenEndReachesTheEnd() throws IOException {
    CliRun run =
        check(
            "1, 3, 9223372036854775807, 1",
            List.of(
                input("g", "[4, 2]"),
                call("z", "aten.zeros.default", "[[4, 3]]", "[4, 3]"),
                call(
                    "cat",
                    "aten.cat.default",
                    "[[" + ref("z") + ", " + ref("g") + "], 1]",
                    "[4, 5]")),
            "cat");
    assertEquals(0, run.exitCode(), run::transcript);
    assertTrue(run.out().contains("b: r0.cat"), run::transcript);
  }

  @Test
  void theGradientElsewhereIsAnotherTensor() throws IOException {
    CliRun run = check("1, 1, 3, 1", padded(2, 1));
    assertEquals(1, run.exitCode(), run::transcript);
    assertTrue(run.out().startsWith("not-refined"), run::transcript);
  }
}
