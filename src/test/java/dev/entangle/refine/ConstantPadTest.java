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
 * {@code constant_pad_nd} is lowered to what it computes: each padded dim cropped by a negative
 * count and extended by blocks of the padding value, so a rank that writes the same padding with
 * {@code cat} and {@code full}, or a crop with {@code slice}, computes the same tensor.
 */
class ConstantPadTest {
  @TempDir Path tmp;

  private CliRun check(String pad, List<String> gdNodes, String gdOut, String shape)
      throws IOException {
    String gs =
        HandGraphs.graph(
            List.of(
                input("x", "[4, 3]"),
                call(
                    "p",
                    "aten.constant_pad_nd.default",
                    "[" + ref("x") + ", " + pad + ", 0.0]",
                    shape)),
            "p");
    return HandGraphs.check(
        tmp, gs, List.of(HandGraphs.graph(gdNodes, gdOut)), "{\"gs\": \"x\", \"gd\": \"r0.x\"}");
  }

  @Test
  void paddingRowsIsConcatenatingFilledBlocks() throws IOException {
    CliRun run =
        check(
            "[0, 0, 1, 2]",
            List.of(
                input("x", "[4, 3]"),
                call("z", "aten.zeros.default", "[[1, 3]]", "[1, 3]"),
                call("f", "aten.full.default", "[[2, 3], 0.0]", "[2, 3]"),
                call(
                    "cat",
                    "aten.cat.default",
                    "[[" + ref("z") + ", " + ref("x") + ", " + ref("f") + "]]",
                    "[7, 3]")),
            "cat",
            "[7, 3]");
    assertEquals(0, run.exitCode(), run::transcript);
    assertTrue(run.out().contains("p: r0.cat"), run::transcript);
  }

  @Test
  void negativePaddingCrops() throws IOException {
    CliRun run =
        check(
            "[-1, 0]",
            List.of(
                input("x", "[4, 3]"),
                call("s", "aten.slice.Tensor", "[" + ref("x") + ", 1, 1, 3]", "[4, 2]")),
            "s",
            "[4, 2]");
    assertEquals(0, run.exitCode(), run::transcript);
    assertTrue(run.out().contains("p: r0.s"), run::transcript);
  }

  @Test
  void anotherPaddingValueIsAnotherTensor() throws IOException {
    CliRun run =
        check(
            "[0, 0, 1, 2]",
            List.of(
                input("x", "[4, 3]"),
                call("z", "aten.ones.default", "[[1, 3]]", "[1, 3]"),
                call("f", "aten.full.default", "[[2, 3], 0.0]", "[2, 3]"),
                call(
                    "cat",
                    "aten.cat.default",
                    "[[" + ref("z") + ", " + ref("x") + ", " + ref("f") + "]]",
                    "[7, 3]")),
            "cat",
            "[7, 3]");
    assertEquals(1, run.exitCode(), run::transcript);
    assertTrue(run.out().startsWith("not-refined"), run::transcript);
  }

  @Test
  void paddingOnTheWrongSideIsAnotherTensor() throws IOException {
    CliRun run =
        check(
            "[0, 0, 1, 2]",
            List.of(
                input("x", "[4, 3]"),
                call("f", "aten.full.default", "[[3, 3], 0.0]", "[3, 3]"),
                call(
                    "cat", "aten.cat.default", "[[" + ref("x") + ", " + ref("f") + "]]", "[7, 3]")),
            "cat",
            "[7, 3]");
    assertEquals(1, run.exitCode(), run::transcript);
  }
}
