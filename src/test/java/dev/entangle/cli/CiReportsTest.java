package dev.entangle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.entangle.refine.CheckResult;
import dev.entangle.refine.Verdict;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;

/** {@code entangle check --junit/--sarif/--html}: what CI systems and people are shown. */
class CiReportsTest {
  @TempDir Path tmp;

  private static ExampleCase example(String name) {
    return ExampleCase.all().stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow();
  }

  @Test
  void junitOfAFailureNamesTheOperatorReasonAndSourceLine() {
    Path junit = tmp.resolve("r.xml");
    CliRun run = example("bug-mlp-missing-allreduce").check("--junit", junit, "--no-numbers");
    assertEquals(1, run.exitCode(), run::transcript);
    JunitXml x = JunitXml.read(junit);
    assertEquals("not-refined", x.property("verdict"));
    Element c = x.testCase("operator addmm_1 (aten.addmm.default)");
    assertEquals("scripts/example_models.py", c.getAttribute("file"));
    assertEquals("85", c.getAttribute("line"), "the distributed code's line");
    Element failure = JunitXml.child(c, "failure");
    assertNotNull(failure, "the failing operator is a failed test case");
    assertEquals("not-refined", failure.getAttribute("type"));
    assertTrue(
        failure.getAttribute("message").startsWith("not-refined at addmm_1 (aten.addmm.default)"),
        failure.getAttribute("message"));
    assertTrue(
        failure.getAttribute("message").contains("which no G_d tensor the proof reached computes"));
    assertTrue(
        failure
            .getAttribute("message")
            .contains("scripts/example_models.py:134; G_d at scripts/example_models.py:85"),
        failure.getAttribute("message"));
    assertTrue(failure.getTextContent().contains("fc2_bias = r0.fc2_bias  |  r1.fc2_bias"));
  }

  @Test
  void junitOfARefinementHasAPassingCasePerOutput() {
    Path junit = tmp.resolve("r.xml");
    CliRun run = example("fig1-matmul").check("--junit", junit);
    assertEquals(0, run.exitCode(), run::transcript);
    JunitXml x = JunitXml.read(junit);
    assertEquals(1, x.cases().size());
    Element c = x.testCase("output sub");
    assertNull(JunitXml.child(c, "failure"));
    assertEquals(
        "sub = concat(r0.sub, r1.sub, dim=0)", JunitXml.child(c, "system-out").getTextContent());
  }

  @Test
  void sarifLocatesTheFailureAtItsModelLine() throws IOException {
    Path sarif = tmp.resolve("r.sarif");
    CliRun run = example("bug-mlp-missing-allreduce").check("--sarif", sarif, "--no-numbers");
    assertEquals(1, run.exitCode(), run::transcript);
    JsonNode log = ExampleCase.JSON.readTree(sarif.toFile());
    assertEquals("2.1.0", log.get("version").asText());
    JsonNode results = log.at("/runs/0/results");
    assertEquals(1, results.size());
    JsonNode r = results.get(0);
    assertEquals("not-refined", r.get("ruleId").asText());
    assertEquals("error", r.get("level").asText());
    assertEquals(
        "not-refined",
        log.at("/runs/0/tool/driver/rules/" + r.get("ruleIndex").asInt() + "/id").asText());
    JsonNode loc = r.at("/locations/0/physicalLocation");
    assertEquals("scripts/example_models.py", loc.at("/artifactLocation/uri").asText());
    assertEquals("%SRCROOT%", loc.at("/artifactLocation/uriBaseId").asText());
    assertEquals(85, loc.at("/region/startLine").asInt(), "the distributed code's line");
    assertEquals("y = y + self.bias", loc.at("/region/snippet/text").asText());
    assertEquals(134, r.at("/relatedLocations/0/physicalLocation/region/startLine").asInt());
    assertTrue(
        r.at("/relatedLocations/0/message/text").asText().contains("sequential model's operator"));
    assertEquals("addmm_1", r.at("/locations/0/logicalLocations/0/name").asText());
    assertTrue(r.at("/message/text").asText().contains("addmm_1"));
  }

  @Test
  void sarifOfARefinementHasNoResult() throws IOException {
    Path sarif = tmp.resolve("r.sarif");
    assertEquals(0, example("mlp-tp2").check("--sarif", sarif).exitCode());
    JsonNode log = ExampleCase.JSON.readTree(sarif.toFile());
    assertEquals(0, log.at("/runs/0/results").size());
    assertTrue(log.at("/runs/0/invocations/0/executionSuccessful").asBoolean());
  }

  @Test
  void sarifGivesUnprovedAsAWarningAndAbsolutePathsAsFileUris() {
    Report.FailureText f =
        new Report.FailureText(
            "mul_3",
            "aten.mul.Tensor",
            "File \"/home/me/model.py\", line 7, in forward\n    y = x * s",
            "no lemma proves it",
            null,
            List.of(),
            List.of(),
            null,
            new SourceFrames.Frame("/home/me/model.py", 7, "forward", "y = x * s"),
            List.of());
    Report r =
        new Report(
            Verdict.UNPROVED,
            List.of(),
            List.of(),
            f,
            List.of(),
            new CheckResult.Stats(3, 6, 0.1, Map.of()));
    JsonNode log =
        SarifReport.toJson(
            List.of(
                new SarifReport.Checked(new CaseLabel("c", "gs.json", "gd.json", "ri.json"), r)),
            List.of());
    JsonNode res = log.at("/runs/0/results/0");
    assertEquals("unproved", res.get("ruleId").asText());
    assertEquals("warning", res.get("level").asText());
    assertEquals(
        "file:///home/me/model.py",
        res.at("/locations/0/physicalLocation/artifactLocation/uri").asText());
    assertTrue(res.at("/locations/0/physicalLocation/artifactLocation/uriBaseId").isMissingNode());
  }

  @Test
  void sarifPointsAtTheModelsOwnFrameNotAnInstalledPackage() {
    List<SourceFrames.Frame> frames =
        SourceFrames.of(
            "File \"train.py\", line 3, in main\n    loss = model(x)\n"
                + "File \"/usr/lib/python3/dist-packages/torch/nn/functional.py\", line 9, in linear\n"
                + "    return torch._C._nn.linear(x, w)");
    assertEquals(2, frames.size());
    assertEquals("train.py:3", SourceFrames.primary(frames).where());
    assertEquals("loss = model(x)", SourceFrames.primary(frames).code());
  }

  @Test
  void htmlPageDrawsTheNeighbourhoodOfTheFailingOperator() throws IOException {
    Path html = tmp.resolve("r.html");
    CliRun run = example("bug-mlp-missing-allreduce").check("--html", html, "--no-numbers");
    assertEquals(1, run.exitCode(), run::transcript);
    String page = Files.readString(html);
    assertTrue(page.contains("<svg id=\"drawing\""), "no drawing");
    assertTrue(page.contains("class=\"node operator alert\" tabindex=\"0\" data-name=\"addmm_1\""));
    for (String input : List.of("fc2_bias", "gelu", "t_1")) {
      assertTrue(
          page.contains("class=\"node input\" tabindex=\"0\" data-name=\"" + input + "\""), input);
    }
    assertTrue(page.contains("concat(r0.gelu, r1.gelu, dim=1)"), "the relation of an input");
    assertTrue(page.contains("<li><code>r0.mm</code></li>"), "the G_d tensors explored");
    assertFalse(page.contains("http://") && page.contains("<link"), "nothing is fetched");
    assertFalse(page.contains("src=\"http"), "nothing is fetched");
  }

  @Test
  void htmlPageOfARefinementTablesTheOutputRelation() throws IOException {
    Path html = tmp.resolve("r.html");
    assertEquals(0, example("fig1-matmul").check("--html", html).exitCode());
    String page = Files.readString(html);
    assertTrue(page.contains("id=\"output-relation-table\""));
    assertTrue(page.contains("<td><code>concat(r0.sub, r1.sub, dim=0)</code></td>"));
    assertFalse(page.contains("<svg"), "no drawing without a failure");
  }

  @Test
  void aReportIntoAMissingFolderIsAnInputError() {
    example("mlp-tp2")
        .check("--sarif", tmp.resolve("no/such/folder/r.sarif"))
        .assertInputError("cannot write", "does not exist");
  }
}
