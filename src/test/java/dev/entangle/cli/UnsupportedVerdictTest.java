package dev.entangle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An operator entangle can neither lower nor evaluate gives the verdict {@code unsupported} (exit
 * 3) where the check stops at it, never {@code not-refined}; the same operator on replicated inputs
 * still maps by congruence, and a bug the numbers show elsewhere is still {@code not-refined}.
 */
class UnsupportedVerdictTest {
  private static final String UNKNOWN = "aten.made_up_activation.default";
  private static final Path MLP = CliRun.PROJECT_ROOT.resolve("examples/mlp-tp2");

  @TempDir Path dir;

  /** Every node of G_s and of each G_d rank with target {@code from} gets target {@code to}. */
  private Path[] retarget(String from, String to) {
    Path gs =
        JsonEdits.copy(MLP.resolve("gs.json"), dir.resolve("gs.json"), g -> rename(g, from, to));
    Path gd =
        JsonEdits.copy(
            MLP.resolve("gd.json"),
            dir.resolve("gd.json"),
            g -> JsonEdits.ranks(g).forEach(r -> rename(r, from, to)));
    return new Path[] {gs, gd};
  }

  private static void rename(JsonNode graph, String from, String to) {
    for (JsonNode n : JsonEdits.nodes(graph)) {
      if (n.path("target").asText().equals(from)) {
        ((ObjectNode) n).put("target", to);
      }
    }
  }

  @Test
  void anOperatorWithoutLoweringWhereTheProofStopsIsUnsupported() {
    Path[] g = retarget("aten.gelu.default", UNKNOWN);
    Path json = dir.resolve("report.json");
    CliRun r = CliRun.check(g[0], g[1], MLP.resolve("ri.json"), "--json", json);
    assertEquals(3, r.exitCode(), r::transcript);
    assertEquals("unsupported", r.verdictLine(), r::transcript);
    assertTrue(r.out().contains("operator: gelu (" + UNKNOWN + ")"), r::transcript);
    assertTrue(
        r.out().contains("example_models.py"), () -> "names its source line\n" + r.transcript());
    assertTrue(r.out().contains("--lemmas"), r::transcript);
    assertTrue(r.out().contains("file an issue"), r::transcript);
    assertFalse(r.out().contains("not-refined"), r::transcript);
    JsonNode report = JsonEdits.read(json);
    assertEquals("unsupported", report.get("verdict").asText());
    assertEquals("gelu", report.at("/failure/operator").asText());
    assertEquals(UNKNOWN, report.at("/failure/target").asText());
    assertTrue(report.at("/failure/reason").asText().contains("neither lower nor evaluate"));
  }

  @Test
  void aMatchThatMayGoThroughAnOperatorOfGdWithoutNumbersIsNoBug() {
    // G_s's gelu is known; every rank's is not: no G_d value the numbers compute equals gelu's
    // output, but the ranks' outputs, not computed, may (a false witness said not-refined)
    Path gd =
        JsonEdits.copy(
            MLP.resolve("gd.json"),
            dir.resolve("gd.json"),
            g -> JsonEdits.ranks(g).forEach(r -> rename(r, "aten.gelu.default", UNKNOWN)));
    Path json = dir.resolve("report.json");
    CliRun r = CliRun.check(MLP.resolve("gs.json"), gd, MLP.resolve("ri.json"), "--json", json);
    assertEquals(3, r.exitCode(), r::transcript);
    assertEquals("unsupported", r.verdictLine(), r::transcript);
    assertTrue(r.out().contains("operator: gelu (aten.gelu.default)"), r::transcript);
    assertTrue(r.out().contains("G_d computes r0.gelu through " + UNKNOWN), r::transcript);
    assertTrue(r.out().contains("was not computed on numbers"), r::transcript);
    assertFalse(r.out().contains("differs at"), r::transcript);
    JsonNode report = JsonEdits.read(json);
    assertEquals("unsupported", report.get("verdict").asText());
    assertTrue(report.at("/failure/reason").asText().contains(UNKNOWN), report::toString);
  }

  @Test
  void ciReportsAndBatchKnowTheVerdict() throws Exception {
    Path[] g = retarget("aten.gelu.default", UNKNOWN);
    Path junit = dir.resolve("r.xml");
    Path sarif = dir.resolve("r.sarif");
    Path html = dir.resolve("r.html");
    CliRun r =
        CliRun.check(
            g[0], g[1], MLP.resolve("ri.json"), "--junit", junit, "--sarif", sarif, "--html", html);
    assertEquals(3, r.exitCode(), r::transcript);
    String xml = Files.readString(junit);
    assertTrue(xml.contains("<error") && xml.contains("type=\"unsupported\""), xml);
    JsonNode log = JsonEdits.read(sarif);
    assertEquals("unsupported", log.at("/runs/0/results/0/ruleId").asText());
    assertEquals("warning", log.at("/runs/0/results/0/level").asText());
    assertTrue(Files.readString(html).contains("unsupported"));
    Path manifest = dir.resolve("m.json");
    Files.writeString(
        manifest,
        "{\"format\": \"entangle-batch/1\", \"cases\": [{\"name\": \"opaque\", \"gs\": \""
            + g[0]
            + "\", \"gd\": \""
            + g[1]
            + "\", \"rel\": \""
            + MLP.resolve("ri.json")
            + "\", \"expect\": \"unsupported\", \"operator\": \"gelu\"}]}");
    CliRun batch = CliRun.run("batch", manifest);
    assertEquals(0, batch.exitCode(), batch::transcript);
  }

  @Test
  void verboseListsTheOpaqueOperatorsAtLoadTime() {
    Path[] g = retarget("aten.gelu.default", UNKNOWN);
    CliRun r = CliRun.check(g[0], g[1], MLP.resolve("ri.json"), "-v");
    assertTrue(r.err().contains("operators kept opaque"), r::transcript);
    assertTrue(
        r.err().contains(UNKNOWN + ": 1 G_s node(s) (first gelu), 2 G_d node(s)"), r::transcript);
    CliRun plain =
        CliRun.check(MLP.resolve("gs.json"), MLP.resolve("gd.json"), MLP.resolve("ri.json"), "-v");
    assertTrue(plain.err().contains("operators kept opaque: none"), plain::transcript);
  }

  @Test
  void anOpaqueOperatorOnReplicatedInputsStillMapsByCongruence() {
    Path gs =
        JsonEdits.copy(
            MLP.resolve("gs.json"), dir.resolve("gs.json"), UnsupportedVerdictTest::scaleInput);
    Path gd =
        JsonEdits.copy(
            MLP.resolve("gd.json"),
            dir.resolve("gd.json"),
            g -> JsonEdits.ranks(g).forEach(UnsupportedVerdictTest::scaleInput));
    CliRun r = CliRun.check(gs, gd, MLP.resolve("ri.json"));
    assertEquals(0, r.exitCode(), r::transcript);
    assertEquals("refines", r.verdictLine(), r::transcript);
  }

  @Test
  void aFailureAfterAnOpaqueOperatorIsUnsupportedUnlessTheNumbersCouldNotRunAnyway() {
    Path ex = CliRun.PROJECT_ROOT.resolve("examples/bug-mlp-missing-allreduce");
    Path gs =
        JsonEdits.copy(
            ex.resolve("gs.json"), dir.resolve("gs.json"), UnsupportedVerdictTest::scaleInput);
    Path gd =
        JsonEdits.copy(
            ex.resolve("gd.json"),
            dir.resolve("gd.json"),
            g -> JsonEdits.ranks(g).forEach(UnsupportedVerdictTest::scaleInput));
    // the opaque operator maps by congruence; the proof fails later, at addmm_1, and the numbers
    // cannot evaluate G_s through the opaque operator: neither can tell a bug from a gap
    CliRun r = CliRun.check(gs, gd, ex.resolve("ri.json"));
    assertEquals(3, r.exitCode(), r::transcript);
    assertEquals("unsupported", r.verdictLine(), r::transcript);
    assertTrue(r.out().contains("operator: x2 (aten.made_up_scale.default)"), r::transcript);
    assertTrue(r.out().contains("The proof stopped at addmm_1"), r::transcript);
    // over the numeric budget the numbers would not have run anyway: not-refined, saying so
    CliRun over = CliRun.check(gs, gd, ex.resolve("ri.json"), "--numeric-budget", "0.000000001");
    assertEquals(1, over.exitCode(), over::transcript);
    assertEquals("not-refined", over.verdictLine(), over::transcript);
    assertTrue(over.out().contains("operator: addmm_1"), over::transcript);
    assertTrue(over.out().contains("--numeric-budget"), over::transcript);
  }

  @Test
  void anOutputThroughAnOpaqueOperatorOnShardsIsUnsupported() {
    Path ex = CliRun.PROJECT_ROOT.resolve("examples/mlp-tp2");
    CliRun r = withOpaqueOutput(ex);
    assertEquals(3, r.exitCode(), r::transcript);
    assertEquals("unsupported", r.verdictLine(), r::transcript);
    assertTrue(r.out().contains("operator: w2 (aten.made_up_scale.default)"), r::transcript);
  }

  @Test
  void aBugTheNumbersShowElsewhereIsStillNotRefined() {
    // the opaque output comes first in G_s, the missing all-reduce after it: the bug is reported
    Path ex = CliRun.PROJECT_ROOT.resolve("examples/bug-mlp-missing-allreduce");
    CliRun r = withOpaqueOutput(ex);
    assertEquals(1, r.exitCode(), r::transcript);
    assertEquals("not-refined", r.verdictLine(), r::transcript);
    assertTrue(r.out().contains("operator: addmm_1"), r::transcript);
    assertTrue(r.out().contains("on random inputs (seed"), r::transcript);
  }

  /**
   * Checks the example with a second output {@code w2 = made_up_scale(fc1_weight)} in G_s and on
   * every rank: the weight is sharded, so G_d's ranks compute the opaque operator on their shards.
   */
  private CliRun withOpaqueOutput(Path ex) {
    Path gs =
        JsonEdits.copy(
            ex.resolve("gs.json"), dir.resolve("gs.json"), UnsupportedVerdictTest::opaqueOutput);
    Path gd =
        JsonEdits.copy(
            ex.resolve("gd.json"),
            dir.resolve("gd.json"),
            g -> JsonEdits.ranks(g).forEach(UnsupportedVerdictTest::opaqueOutput));
    return CliRun.check(gs, gd, ex.resolve("ri.json"));
  }

  private static void opaqueOutput(JsonNode graph) {
    ArrayNode nodes = JsonEdits.nodes(graph);
    ObjectNode w = JsonEdits.node(graph, "fc1_weight");
    ObjectNode w2 = call("w2", "aten.made_up_scale.default", "fc1_weight", w);
    nodes.insert(firstCall(nodes), w2);
    ObjectNode out = JsonEdits.node(graph, "output");
    ((ArrayNode) out.get("args").get(0)).add(node("w2"));
  }

  private static int firstCall(ArrayNode nodes) {
    int at = 0;
    while (!nodes.get(at).path("op").asText().equals("call_function")) {
      at++;
    }
    return at;
  }

  private static ObjectNode call(String name, String target, String arg, ObjectNode like) {
    ObjectNode n = ExampleCase.JSON.createObjectNode();
    n.put("name", name);
    n.put("op", "call_function");
    n.put("target", target);
    n.putArray("args").add(node(arg)).add(2.5);
    n.putObject("kwargs");
    n.set("meta", like.get("meta").deepCopy());
    return n;
  }

  private static ObjectNode node(String name) {
    ObjectNode ref = ExampleCase.JSON.createObjectNode();
    ref.put("node", name);
    return ref;
  }

  /** Inserts {@code x2 = made_up_scale(x)} and makes {@code addmm} read it instead of {@code x}. */
  private static void scaleInput(JsonNode graph) {
    ArrayNode nodes = JsonEdits.nodes(graph);
    nodes.insert(
        firstCall(nodes),
        call("x2", "aten.made_up_scale.default", "x", JsonEdits.node(graph, "x")));
    ((ArrayNode) JsonEdits.node(graph, "addmm").get("args")).set(1, node("x2"));
  }
}
