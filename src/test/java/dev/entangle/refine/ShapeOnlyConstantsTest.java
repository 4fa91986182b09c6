package dev.entangle.refine;

import static dev.entangle.refine.HandGraphs.call;
import static dev.entangle.refine.HandGraphs.input;
import static dev.entangle.refine.HandGraphs.ref;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.entangle.cli.CliRun;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A call that reads only the shape of its tensor argument ({@code ones_like}, the gradient seed of
 * a backward graph) is a constant: it maps whatever tensor of that shape it reads, even one the
 * relation does not mention, and its value takes part in the algebra of constants.
 */
class ShapeOnlyConstantsTest {
  @TempDir Path tmp;

  private CliRun check(String gdTarget, String gdArgs) throws IOException {
    String gs =
        HandGraphs.graph(
            List.of(
                input("x", "[4, 3]"),
                call("o", "aten.ones_like.default", "[" + ref("x") + "]", "[4, 3]"),
                call("h", "aten.div.Scalar", "[" + ref("o") + ", 2]", "[4, 3]"),
                call("y", "aten.mul.Tensor", "[" + ref("x") + ", " + ref("h") + "]", "[4, 3]")),
            "y");
    String rank =
        HandGraphs.graph(
            List.of(
                input("x", "[4, 3]"),
                input("z", "[4, 3]"),
                call("o", gdTarget, gdArgs, "[4, 3]"),
                call("y", "aten.mul.Tensor", "[" + ref("x") + ", " + ref("o") + "]", "[4, 3]")),
            "y");
    return HandGraphs.check(tmp, gs, List.of(rank), "{\"gs\": \"x\", \"gd\": \"r0.x\"}");
  }

  @Test
  void onesLikeOfAnUnrelatedTensorIsTheSameConstant() throws IOException {
    CliRun run = check("aten.full_like.default", "[" + ref("z") + ", 0.5]");
    assertEquals(0, run.exitCode(), run::transcript);
    assertTrue(run.out().contains("y: r0.y"), run::transcript);
  }

  @Test
  void anotherConstantIsAnotherValue() throws IOException {
    CliRun run = check("aten.full_like.default", "[" + ref("z") + ", 0.25]");
    assertEquals(1, run.exitCode(), run::transcript);
  }

  @Test
  void aFailingOperatorsConstantInputIsReportedAsOne() throws IOException {
    check("aten.full_like.default", "[" + ref("z") + ", 0.25]");
    Path json = tmp.resolve("report.json");
    CliRun run =
        CliRun.check(
            tmp.resolve("gs.json"), tmp.resolve("gd.json"), tmp.resolve("ri.json"), "--json", json);
    assertTrue(run.out().contains("    h = (a constant)\n"), run::transcript);
    JsonNode inputs = new ObjectMapper().readTree(json.toFile()).at("/failure/inputs");
    assertEquals("y", new ObjectMapper().readTree(json.toFile()).at("/failure/operator").asText());
    JsonNode h = inputs.get(1);
    assertEquals("h", h.get("name").asText());
    assertEquals(0, h.get("gd").size(), h::toString);
    assertTrue(h.get("constant").asBoolean(), h::toString);
    assertEquals("r0.x", inputs.get(0).get("gd").get(0).asText());
  }

  @Test
  void aValueComputedFromTheTensorIsNoConstant() throws IOException {
    CliRun run = check("aten.mul.Scalar", "[" + ref("z") + ", 0.5]");
    assertEquals(1, run.exitCode(), run::transcript);
  }
}
