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
 * An activation's gradient ({@code gelu_backward(grad, x)}, ...) is the incoming gradient times the
 * activation's derivative at x: linear in the gradient, not in x. A gradient scaled before the
 * kernel (a loss divided by the batch) equals the kernel's result scaled after it.
 */
class ActivationGradientTest {
  @TempDir Path tmp;

  private CliRun check(String target, List<String> gdNodes) throws IOException {
    String gs =
        HandGraphs.graph(
            List.of(
                input("g", "[4, 3]"),
                input("x", "[4, 3]"),
                call("s", "aten.mul.Tensor", "[" + ref("g") + ", 0.5]", "[4, 3]"),
                call("y", target, "[" + ref("s") + ", " + ref("x") + "]", "[4, 3]")),
            "y");
    String rank = HandGraphs.graph(gdNodes, "y");
    return HandGraphs.check(
        tmp,
        gs,
        List.of(rank),
        "{\"gs\": \"g\", \"gd\": \"r0.g\"}, {\"gs\": \"x\", \"gd\": \"r0.x\"}");
  }

  @Test
  void aScaledGradientIsTheScaledResult() throws IOException {
    for (String target : List.of("aten.gelu_backward.default", "aten.tanh_backward.default")) {
      CliRun run =
          check(
              target,
              List.of(
                  input("g", "[4, 3]"),
                  input("x", "[4, 3]"),
                  call("b", target, "[" + ref("g") + ", " + ref("x") + "]", "[4, 3]"),
                  call("y", "aten.mul.Tensor", "[" + ref("b") + ", 0.5]", "[4, 3]")));
      assertEquals(0, run.exitCode(), run::transcript);
      assertTrue(run.out().contains("y: r0.y"), run::transcript);
    }
  }

  @Test
  void aScaledInputIsAnotherGradient() throws IOException {
    CliRun run =
        check(
            "aten.gelu_backward.default",
            List.of(
                input("g", "[4, 3]"),
                input("x", "[4, 3]"),
                call("s", "aten.mul.Tensor", "[" + ref("x") + ", 0.5]", "[4, 3]"),
                call(
                    "y",
                    "aten.gelu_backward.default",
                    "[" + ref("g") + ", " + ref("s") + "]",
                    "[4, 3]")));
    assertEquals(1, run.exitCode(), run::transcript);
  }

  @Test
  void twoActivationsHaveTwoDerivatives() throws IOException {
    CliRun run =
        check(
            "aten.gelu_backward.default",
            List.of(
                input("g", "[4, 3]"),
                input("x", "[4, 3]"),
                call(
                    "b",
                    "aten.silu_backward.default",
                    "[" + ref("g") + ", " + ref("x") + "]",
                    "[4, 3]"),
                call("y", "aten.mul.Tensor", "[" + ref("b") + ", 0.5]", "[4, 3]")));
    assertEquals(1, run.exitCode(), run::transcript);
  }
}
