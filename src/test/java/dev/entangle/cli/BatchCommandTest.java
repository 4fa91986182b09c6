package dev.entangle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;

/** {@code entangle batch}: every case against its expectation, the table, JUnit and JSON. */
class BatchCommandTest {
  @TempDir Path tmp;

  private static final Path EXAMPLES = CliRun.PROJECT_ROOT.resolve("examples");

  @Test
  void everyExampleMeetsItsExpectation() throws IOException {
    Path junit = tmp.resolve("b.xml");
    Path json = tmp.resolve("b.json");
    CliRun run = CliRun.run("batch", EXAMPLES, "--junit", junit, "--json", json, "-j", "2");
    assertEquals(0, run.exitCode(), run::transcript);
    List<String> lines = run.out().lines().toList();
    assertTrue(lines.get(0).matches("case\\s+expected\\s+verdict\\s+operator\\s+seconds\\s*"));
    List<ExampleCase> cases = ExampleCase.all();
    for (int i = 0; i < cases.size(); i++) {
      ExampleCase c = cases.get(i);
      String row = lines.get(i + 1);
      assertTrue(row.startsWith(c.name() + " "), "manifest order: " + row);
      assertTrue(row.contains(" " + c.verdicts().get(0) + " "), row);
      if (c.operator() != null) {
        assertTrue(row.matches(".*\\s" + Pattern.quote(c.operator()) + "\\s+\\d+\\.\\d\\d"), row);
      }
    }
    assertTrue(
        lines
            .get(cases.size() + 1)
            .startsWith(cases.size() + " cases, " + cases.size() + " met their expectation in "));
    JunitXml x = JunitXml.read(junit);
    assertEquals(cases.size(), x.cases().size());
    for (Element c : x.cases()) {
      assertNull(JunitXml.child(c, "failure"), c.getAttribute("name"));
    }
    assertEquals(
        "scripts/example_models.py", x.testCase("bug-mlp-missing-allreduce").getAttribute("file"));
    JsonNode report = ExampleCase.JSON.readTree(json.toFile());
    assertEquals(cases.size(), report.at("/summary/met").asInt());
    int missing =
        cases.indexOf(
            cases.stream()
                .filter(c -> c.name().equals("bug-mlp-missing-allreduce"))
                .findFirst()
                .orElseThrow());
    assertEquals("addmm_1", report.at("/cases/" + missing + "/report/failure/operator").asText());
  }

  @Test
  void aCaseThatMissesItsExpectationFailsTheRun() throws IOException {
    Path manifest = tmp.resolve("m.json");
    String mlp = EXAMPLES.resolve("mlp-tp2").toString();
    String bug = EXAMPLES.resolve("bug-mlp-missing-allreduce").toString();
    Files.writeString(
        manifest,
        "{\"format\": \"entangle-batch/1\", \"name\": \"mixed\", \"cases\": ["
            + caseJson("good", mlp, "\"refines\"", null)
            + ","
            + caseJson("wrong-verdict", mlp, "\"not-refined\"", null)
            + ","
            + caseJson("wrong-operator", bug, "\"not-refined\"", "addmm")
            + ","
            + caseJson("either", bug, "[\"expectation-violated\", \"not-refined\"]", "addmm_1")
            + "]}");
    Path junit = tmp.resolve("b.xml");
    CliRun run = CliRun.run("batch", manifest, "--junit", junit, "--no-numbers");
    assertEquals(1, run.exitCode(), run::transcript);
    assertTrue(
        run.out()
            .contains("4 cases, 2 met their expectation, 2 did not: wrong-verdict, wrong-operator"),
        run::transcript);
    JunitXml x = JunitXml.read(junit);
    assertNull(JunitXml.child(x.testCase("good"), "failure"));
    assertNull(JunitXml.child(x.testCase("either"), "failure"));
    Element wrong = JunitXml.child(x.testCase("wrong-verdict"), "failure");
    assertEquals("expectation-not-met", wrong.getAttribute("type"));
    assertEquals("expected not-refined, got refines", wrong.getAttribute("message"));
    Element op = JunitXml.child(x.testCase("wrong-operator"), "failure");
    assertTrue(
        op.getAttribute("message").startsWith("expected the failure at addmm, got it at addmm_1"),
        op.getAttribute("message"));
  }

  @Test
  void aGraphPathMayBeAnHloModuleReadAsCheckReadsIt() throws IOException {
    Path hlo = EXAMPLES.resolve("hlo-linear-tp2");
    Path manifest = tmp.resolve("hlo.json");
    Files.writeString(
        manifest,
        "{\"format\": \"entangle-batch/1\", \"cases\": [{\"name\": \"hlo\", \"gs\": \""
            + hlo.resolve("gs.hlo").toAbsolutePath()
            + "\", \"gd\": \""
            + hlo.resolve("gd.json").toAbsolutePath()
            + "\", \"rel\": \""
            + hlo.resolve("ri.json").toAbsolutePath()
            + "\", \"expect\": \"refines\"}]}");
    CliRun run = CliRun.run("batch", manifest, "--no-numbers");
    assertEquals(0, run.exitCode(), run::transcript);
    assertTrue(run.out().contains("1 cases, 1 met their expectation"), run::transcript);
  }

  @Test
  void aCaseThatCannotRunIsAnErrorAndTheOthersStillRun() throws IOException {
    Path broken = tmp.resolve("broken.json");
    Files.writeString(broken, "{\"format\": \"entangle-fx/1\", \"nodes\": [}");
    Path manifest = tmp.resolve("m.json");
    String mlp = EXAMPLES.resolve("mlp-tp2").toString();
    Files.writeString(
        manifest,
        "{\"format\": \"entangle-batch/1\", \"cases\": ["
            + "{\"name\": \"broken\", \"gs\": \"broken.json\", \"gd\": \""
            + mlp
            + "/gd.json\", \"rel\": \""
            + mlp
            + "/ri.json\", \"expect\": \"refines\"},"
            + caseJson("good", mlp, "\"refines\"", null)
            + "]}");
    Path junit = tmp.resolve("b.xml");
    CliRun run = CliRun.run("batch", manifest, "--junit", junit);
    assertEquals(1, run.exitCode(), run::transcript);
    assertTrue(run.out().contains("broken.json"), "the row names the bad file: " + run.out());
    JunitXml x = JunitXml.read(junit);
    Element error = JunitXml.child(x.testCase("broken"), "error");
    assertNotNull(error);
    assertEquals("input-error", error.getAttribute("type"));
    assertNull(JunitXml.child(x.testCase("good"), "failure"));
  }

  @Test
  void aGsInputWithoutARelationEntryIsABadInputInItsRowAsCheckSays() throws IOException {
    String mlp = EXAMPLES.resolve("mlp-tp2").toString();
    Path ri =
        JsonEdits.copy(
            Path.of(mlp, "ri.json"),
            tmp.resolve("ri.json"),
            r -> ((ArrayNode) r.get("relations")).remove(0));
    Path manifest = tmp.resolve("m.json");
    Files.writeString(
        manifest,
        "{\"format\": \"entangle-batch/1\", \"cases\": [{\"name\": \"gap\", \"gs\": \""
            + mlp
            + "/gs.json\", \"gd\": \""
            + mlp
            + "/gd.json\", \"rel\": \"ri.json\", \"expect\": \"not-refined\"},"
            + caseJson("good", mlp, "\"refines\"", null)
            + "]}");
    Path junit = tmp.resolve("b.xml");
    CliRun run = CliRun.run("batch", manifest, "--junit", junit);
    assertEquals(1, run.exitCode(), run::transcript);
    String row = run.out().lines().filter(l -> l.startsWith("gap ")).findFirst().orElseThrow();
    assertEquals("error", row.split("\\s+")[2], "a bad input, not a verdict: " + row);
    assertTrue(
        run.out().contains("G_s input x is not related to G_d: add an entry"), run.transcript());
    assertEquals(
        "input-error", JunitXml.child(x(junit).testCase("gap"), "error").getAttribute("type"));
    assertNull(JunitXml.child(x(junit).testCase("good"), "failure"));
  }

  @Test
  void aCaseStillReadingAtItsLimitIsInconclusiveNamingThePhaseAndTheOthersGoOn()
      throws IOException, InterruptedException {
    ChainGraph.write(tmp, 200_000); // reading it takes longer than the limit and its grace
    String mlp = EXAMPLES.resolve("mlp-tp2").toString();
    Path manifest = tmp.resolve("m.json");
    Files.writeString(
        manifest,
        "{\"format\": \"entangle-batch/1\", \"cases\": [{\"name\": \"huge\", \"gs\":"
            + " \"chain.json\", \"gd\": \"chain.json\", \"rel\": \"ri.json\", \"expect\":"
            + " \"refines\", \"timeout\": 0.01},"
            + caseJson("good", mlp, "\"refines\"", null)
            + "]}");
    Path junit = tmp.resolve("b.xml");
    Path json = tmp.resolve("b.json");
    CliRun run = CliRun.run("batch", manifest, "--junit", junit, "--json", json, "-j", "1");
    assertEquals(1, run.exitCode(), run::transcript);
    JsonNode huge = ExampleCase.JSON.readTree(json.toFile()).get("cases").get(0);
    assertEquals("inconclusive", huge.get("verdict").asText(), run::transcript);
    assertNotNull(huge.get("stopped_in"), "stopped by the clock before its check: " + huge);
    assertTrue(
        List.of("reading G_s", "reading G_d", "reading the relation", "lowering the graphs")
            .contains(huge.get("stopped_in").asText()),
        huge.toString());
    assertTrue(
        run.out()
            .contains(
                "ran out of time (its limit of 0.01 s) while " + huge.get("stopped_in").asText()),
        run.out());
    Element error = JunitXml.child(x(junit).testCase("huge"), "error");
    assertEquals("inconclusive", error.getAttribute("type"));
    assertNull(JunitXml.child(x(junit).testCase("good"), "failure"), "the other case ran");
    assertNull(JunitXml.child(x(junit).testCase("good"), "error"), "the other case ran");
    // the case given up on stops reading and lowering too: its thread ends instead of reading on
    assertTrue(
        ends("entangle-case-huge", 1_000),
        "the stopped case's thread still runs a second after the batch ended");
  }

  /** Whether no live thread has the name, now or within {@code millis}. */
  private static boolean ends(String thread, long millis) throws InterruptedException {
    long until = System.nanoTime() + millis * 1_000_000;
    while (true) {
      boolean alive =
          Thread.getAllStackTraces().keySet().stream()
              .anyMatch(t -> t.isAlive() && t.getName().equals(thread));
      if (!alive) {
        return true;
      }
      if (System.nanoTime() > until) {
        return false;
      }
      Thread.sleep(10);
    }
  }

  private static JunitXml x(Path junit) {
    return JunitXml.read(junit);
  }

  @Test
  void manifestWritesPathsRelativeToItsFolder() throws IOException {
    Path written = tmp.resolve("sub/manifest.json");
    Files.createDirectories(written.getParent());
    CliRun run = CliRun.run("manifest", EXAMPLES, "-o", written);
    assertEquals(0, run.exitCode(), run::transcript);
    assertTrue(run.out().startsWith("wrote " + written), run.out());
    JsonNode m = ExampleCase.JSON.readTree(written.toFile());
    assertEquals("examples", m.get("name").asText());
    JsonNode first = m.get("cases").get(0);
    assertEquals(
        EXAMPLES.resolve(ExampleCase.all().get(0).name()).resolve("gs.json").normalize(),
        written.getParent().resolve(first.get("gs").asText()).normalize());
    // with numbers: without them the cases expected unproved (a gap in the lemmas) are not-refined
    CliRun batch = CliRun.run("batch", written, "-j", "2");
    assertEquals(0, batch.exitCode(), batch::transcript);
  }

  @Test
  @Tag("realworld")
  void everySharedRealWorldCaseMeetsItsExpectation() throws IOException {
    RealWorldCase.assumePresent();
    List<Object> args = new ArrayList<>(List.of("batch", RealWorldCase.ROOT));
    Path hlo = RealWorldCase.ROOT.resolveSibling("realworld-hlo");
    if (Files.isDirectory(hlo)) {
      args.add(hlo);
    }
    Path junit = tmp.resolve("rw.xml");
    args.addAll(List.of("--junit", junit, "-j", "2"));
    CliRun run = CliRun.run(args.toArray());
    assertEquals(0, run.exitCode(), run::transcript);
    int cases = JunitXml.read(junit).cases().size();
    assertTrue(cases >= RealWorldCase.all().size(), "every case is a test case");
    assertTrue(
        run.out().contains(cases + " cases, " + cases + " met their expectation"), run::transcript);
  }

  @Test
  void aManifestAndFoldersCannotBeMixed() {
    CliRun.run("batch", EXAMPLES, EXAMPLES.resolve("mlp-tp2/ri.json"))
        .assertInputError("give one manifest file, or one or more folders of case folders");
    CliRun.run("batch", CliRun.PROJECT_ROOT.resolve("lemmas"))
        .assertInputError("holds no case folder (a folder with expected.json)");
  }

  private static String caseJson(String name, String dir, String expect, String operator) {
    return "{\"name\": \""
        + name
        + "\", \"gs\": \""
        + dir
        + "/gs.json\", \"gd\": \""
        + dir
        + "/gd.json\", \"rel\": \""
        + dir
        + "/ri.json\", \"expect\": "
        + expect
        + (operator == null ? "" : ", \"operator\": \"" + operator + "\"")
        + "}";
  }
}
