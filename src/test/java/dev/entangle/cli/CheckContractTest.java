package dev.entangle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line's exit codes, report keys and limits (docs/formats.md, Exit codes and JSON
 * report).
 */
class CheckContractTest {
  @TempDir Path tmp;

  private static ExampleCase example(String name) {
    return ExampleCase.all().stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow();
  }

  @Test
  void jsonReportOfARefinement() {
    Path report = tmp.resolve("r.json");
    CliRun run = example("mlp-tp2").check("--json", report);
    assertEquals(0, run.exitCode(), run::transcript);
    JsonNode json = Reports.read(report);
    assertEquals("refines", json.get("verdict").asText());
    assertTrue(json.get("output_relation").isArray());
    assertEquals(1, json.get("output_relation").size(), json::toPrettyString);
    JsonNode entry = json.get("output_relation").get(0);
    assertEquals("addmm_1", entry.get("gs").asText());
    assertTrue(entry.get("gd").asText().matches("r[01]\\.add"), entry::toString);
    assertFalse(json.has("failure") && !json.get("failure").isNull(), json::toPrettyString);
    assertStats(json);
    assertEquals(5, json.get("stats").get("gs_operators").asInt());
    assertEquals(16, json.get("stats").get("gd_operators").asInt());
  }

  @Test
  void jsonReportOfAFailure() {
    Path report = tmp.resolve("r.json");
    CliRun run = example("bug-mlp-missing-allreduce").check("--json", report);
    assertEquals(1, run.exitCode(), run::transcript);
    JsonNode json = Reports.read(report);
    assertEquals("not-refined", json.get("verdict").asText());
    assertTrue(json.get("output_relation").isArray());
    JsonNode f = json.get("failure");
    assertEquals("addmm_1", f.get("operator").asText());
    assertEquals("aten.addmm.default", f.get("target").asText());
    assertTrue(f.get("stack_trace").asText().contains("example_models.py"), f::toPrettyString);
    assertTrue(f.get("inputs").isArray(), f::toPrettyString);
    assertEquals(
        List.of("fc2_bias", "gelu", "t_1"),
        Stream.of(f.get("inputs"))
            .flatMap(a -> a.findValuesAsText("name").stream())
            .sorted()
            .toList());
    for (JsonNode in : f.get("inputs")) {
      assertFalse(in.get("gd").isEmpty(), in::toString);
    }
    assertStats(json);
  }

  @Test
  void jsonReportOfAViolatedExpectation() {
    Path report = tmp.resolve("r.json");
    CliRun run = example("bug-loss-not-scaled").check("--json", report);
    assertEquals(1, run.exitCode(), run::transcript);
    JsonNode json = Reports.read(report);
    assertEquals("expectation-violated", json.get("verdict").asText());
    assertFalse(
        json.get("output_relation").isEmpty(),
        "the output relation exists: " + json.toPrettyString());
    assertTrue(json.get("failure").get("operator").isTextual(), json::toPrettyString);
    assertStats(json);
  }

  private static void assertStats(JsonNode json) {
    JsonNode stats = json.get("stats");
    assertTrue(
        stats.get("gs_operators").isIntegralNumber() && stats.get("gs_operators").asInt() > 0,
        json::toPrettyString);
    assertTrue(
        stats.get("gd_operators").isIntegralNumber() && stats.get("gd_operators").asInt() > 0,
        json::toPrettyString);
    assertTrue(
        stats.get("seconds").isNumber() && stats.get("seconds").asDouble() >= 0,
        json::toPrettyString);
  }

  /** A limit reached first gives exit 3 and {@code inconclusive}, never {@code refines}. */
  @TestFactory
  Stream<DynamicTest> limitsGiveInconclusive() {
    return ExampleCase.refining().stream()
        .flatMap(
            c ->
                Stream.of(
                    DynamicTest.dynamicTest(
                        c.name() + " --node-limit 5", () -> inconclusive(c, "--node-limit", "5")),
                    DynamicTest.dynamicTest(
                        c.name() + " --timeout 0.0001",
                        () -> inconclusive(c, "--timeout", "0.0001"))));
  }

  private void inconclusive(ExampleCase c, String option, String value) throws Exception {
    Path report = Files.createTempDirectory(tmp, "r").resolve("r.json");
    Path relation = report.resolveSibling("out-rel.json");
    CliRun run = c.check(option, value, "--json", report, "--write-relation", relation);
    assertEquals(3, run.exitCode(), run::transcript);
    assertEquals("inconclusive", run.verdictLine(), run::transcript);
    JsonNode json = Reports.read(report);
    assertEquals("inconclusive", json.get("verdict").asText());
    if (json.has("stopped_in")) {
      // stopped by the clock before the check could report (reading or lowering, on a busy
      // machine): the report says where instead of naming an operator
      assertTrue(json.get("reason").asText().contains("ran out of time"), json::toPrettyString);
    } else {
      assertTrue(json.get("failure").get("operator").isTextual(), json::toPrettyString);
    }
    assertFalse(Files.exists(relation), "an inconclusive run wrote an output relation");
  }

  @Test
  void usageErrorsExit2() {
    CliRun none = CliRun.run();
    assertEquals(2, none.exitCode(), none::transcript);
    assertTrue(none.err().contains("check") && none.err().contains("import"), none::transcript);

    ExampleCase c = example("mlp-tp2");
    CliRun unknown = CliRun.run("check", c.gs(), c.gd(), "--rel", c.ri(), "--frobnicate");
    assertUsage(unknown, "--frobnicate");
    assertUsage(CliRun.run("check", c.gs(), c.gd()), "--rel");
    assertUsage(CliRun.run("check", c.gs(), "--rel", c.ri()), "GD");
    assertUsage(CliRun.run("frobnicate"), "frobnicate");
    assertUsage(
        CliRun.run("check", c.gs(), c.gd(), "--rel", c.ri(), "--timeout", "soon"), "--timeout");
    assertUsage(
        CliRun.run("check", c.gs(), c.gd(), "--rel", c.ri(), "--node-limit", "many"),
        "--node-limit");
    assertUsage(CliRun.run("import", c.gs()), "--output");
  }

  private static void assertUsage(CliRun run, String mention) {
    assertEquals(2, run.exitCode(), run::transcript);
    assertEquals("", run.out(), run::transcript);
    assertTrue(
        run.err().contains(mention),
        () -> "expected <" + mention + "> on stderr\n" + run.transcript());
    assertTrue(run.err().contains("--help"), run::transcript);
    assertFalse(run.err().contains("\tat ") || run.err().contains("Exception"), run::transcript);
  }

  @Test
  void helpAndVersionExit0() {
    CliRun version = CliRun.run("--version");
    assertEquals(0, version.exitCode(), version::transcript);
    assertTrue(version.out().startsWith("entangle "), version::transcript);
    for (String cmd : List.of("check", "import")) {
      CliRun help = CliRun.run(cmd, "--help");
      assertEquals(0, help.exitCode(), help::transcript);
      assertTrue(help.out().startsWith("Usage: entangle " + cmd), help::transcript);
    }
    CliRun help = CliRun.run("--help");
    assertEquals(0, help.exitCode(), help::transcript);
    for (String code : List.of("0", "1", "2", "3")) {
      assertTrue(
          help.out().contains("  " + code + "   "),
          () -> "exit code " + code + " in --help\n" + help.transcript());
    }
  }

  @Test
  void verboseNamesEachOperatorOnStderr() {
    CliRun run = example("mlp-tp2").check("--verbose");
    assertEquals(0, run.exitCode(), run::transcript);
    for (String op : List.of("t", "addmm", "gelu", "t_1", "addmm_1")) {
      assertTrue(run.err().contains("] " + op + ":"), () -> op + "\n" + run.transcript());
    }
    assertTrue(run.err().contains("[5/5]"), run::transcript);
  }
}
