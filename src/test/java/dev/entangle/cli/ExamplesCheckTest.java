package dev.entangle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.Graph;
import dev.entangle.graph.GraphJson;
import dev.entangle.graph.Node;
import dev.entangle.graph.NodeOp;
import dev.entangle.relation.Expr;
import dev.entangle.relation.ExprParser;
import dev.entangle.relation.ExprPrinter;
import dev.entangle.relation.RelationEntry;
import dev.entangle.relation.RelationFile;
import dev.entangle.relation.RelationReader;
import dev.entangle.relation.RelationValidator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs {@code entangle check} on every case under {@code examples/} and holds the result to the
 * case's {@code expected.json} and to the report contract of docs/formats.md, JSON report.
 */
class ExamplesCheckTest {
  @TempDir Path tmp;

  @TestFactory
  Stream<DynamicTest> everyExampleReachesItsExpectedVerdict() {
    return ExampleCase.all().stream()
        .map(c -> DynamicTest.dynamicTest(c.name(), () -> checkCase(c)));
  }

  private void checkCase(ExampleCase c) throws IOException {
    Path dir = Files.createDirectories(tmp.resolve(c.name()));
    Path report = dir.resolve("report.json");
    Path written = dir.resolve("output-relation.json");
    CliRun run = c.check("--json", report, "--write-relation", written, "--certify");

    JsonNode json = Reports.read(report);
    String verdict = json.path("verdict").asText();
    assertTrue(
        c.verdicts().contains(verdict),
        () -> c + ": verdict " + verdict + ", expected " + c.verdicts() + "\n" + run.transcript());
    assertEquals(exitCodeOf(verdict), run.exitCode(), run::transcript);
    assertEquals(verdict, run.verdictLine(), run::transcript);
    assertTrue(
        run.out().lines().reduce((a, b) -> b).orElse("").startsWith("checked "), run::transcript);

    Graph gs = GraphJson.readGraph(c.gs());
    DistributedGraph gd = GraphJson.readDistributed(c.gd());
    assertStats(json.get("stats"), gs, gd, verdict.equals("refines"), run);
    if (verdict.equals("refines")) {
      assertCertificate(c, json, run, gs, gd, written, dir);
      assertFalse(run.err().contains("certificate"), () -> c + ": --certify\n" + run.transcript());
    } else {
      assertFalse(Files.exists(written), c + ": --write-relation wrote a file for " + verdict);
      assertFailure(c, json.get("failure"), run, gs);
    }
  }

  private static int exitCodeOf(String verdict) {
    return CliRun.exitCodeOf(verdict);
  }

  /**
   * The output relation covers every required G_s output with a clean expression over G_d outputs.
   */
  private void assertCertificate(
      ExampleCase c,
      JsonNode json,
      CliRun run,
      Graph gs,
      DistributedGraph gd,
      Path written,
      Path dir) {
    assertTrue(
        json.path("failure").isMissingNode() || json.get("failure").isNull(), run::transcript);
    Map<String, String> relation = relationOf(json);
    Set<Node> covered = new LinkedHashSet<>();
    for (Map.Entry<String, String> e : relation.entrySet()) {
      Node node = gs.resolve(e.getKey());
      assertNotNull(
          node, c + ": output relation names " + e.getKey() + ", which G_s does not have");
      covered.add(node);
      assertTrue(
          run.out().contains("\n  " + e.getKey() + ": " + e.getValue() + "\n"),
          () -> c + ": the text report does not show " + e + "\n" + run.transcript());
      Expr expr = ExprParser.parse(e.getValue());
      for (Expr.Tensor t : Reports.tensors(expr)) {
        assertNotNull(t.rank(), c + ": " + e + " refers to a G_s tensor " + t.name());
        assertTrue(
            t.rank() >= 0 && t.rank() < gd.worldSize(), c + ": " + e + " names rank " + t.rank());
        Graph rank = gd.rank(t.rank());
        Node n = rank.resolve(t.name());
        assertNotNull(
            n, c + ": " + e + " names r" + t.rank() + "." + t.name() + ", which G_d does not have");
        assertTrue(
            Reports.outputNames(rank).contains(n.name()),
            c
                + ": "
                + e
                + " uses r"
                + t.rank()
                + "."
                + t.name()
                + ", which is not an output of rank "
                + t.rank());
      }
    }
    for (Node required : requiredOutputs(c, gs)) {
      assertTrue(
          covered.contains(required),
          c
              + ": the output relation "
              + relation
              + " does not cover the G_s output "
              + required.name());
    }

    RelationFile back = RelationReader.read(written, gd.worldSize());
    Map<String, String> reread = new TreeMap<>();
    for (RelationEntry e : back.relations()) {
      reread.put(e.gs(), ExprPrinter.print(e.gd()));
    }
    assertEquals(new TreeMap<>(relation), reread, c + ": the --write-relation file");
    RelationValidator.validate(gs, gd, back);

    CliRun again = CliRun.check(c.gs(), c.gd(), written, "--json", dir.resolve("again.json"));
    assertEquals(
        0,
        again.exitCode(),
        () -> c + ": the output relation fed back as the input relation\n" + again.transcript());
    if (Reports.read(c.ri()).get("outputs") == null) {
      // a relation naming its outputs requires outputs beyond the results; a written relation
      // relates them but does not say which are required
      assertEquals(relation, relationOf(Reports.read(dir.resolve("again.json"))), c + ": fed back");
    }
  }

  /** The relation file's {@code outputs} when given, else every output of G_s. */
  private static List<Node> requiredOutputs(ExampleCase c, Graph gs) {
    JsonNode outputs = Reports.read(c.ri()).get("outputs");
    List<Node> required = new ArrayList<>();
    if (outputs != null) {
      outputs.forEach(o -> required.add(gs.resolve(o.asText())));
    } else {
      Reports.outputNames(gs).forEach(n -> required.add(gs.node(n)));
    }
    assertFalse(required.isEmpty(), c + ": G_s has no outputs");
    return required;
  }

  private static Map<String, String> relationOf(JsonNode report) {
    JsonNode rel = report.get("output_relation");
    assertNotNull(rel, "the report has no output_relation");
    assertTrue(rel.isArray(), "output_relation is not a list");
    Map<String, String> map = new LinkedHashMap<>();
    for (JsonNode e : rel) {
      assertTrue(
          e.path("gs").isTextual() && e.path("gd").isTextual(), "output_relation entry " + e);
      assertEquals(
          null,
          map.put(e.get("gs").asText(), e.get("gd").asText()),
          "two entries for " + e.get("gs"));
    }
    return map;
  }

  /** The failure names a G_s operator, with its target, source and the relations of its inputs. */
  private static void assertFailure(ExampleCase c, JsonNode failure, CliRun run, Graph gs) {
    assertNotNull(failure, c + ": no failure in the report\n" + run.transcript());
    String operator = failure.path("operator").asText();
    if (c.operator() != null) {
      assertEquals(c.operator(), operator, () -> c + ": reported operator\n" + run.transcript());
    }
    Node node = gs.node(operator);
    assertNotNull(node, c + ": the failure names " + operator + ", which is not a G_s node");
    assertEquals(NodeOp.CALL_FUNCTION, node.op(), c + ": " + operator);
    assertEquals(node.target(), failure.path("target").asText(), c + ": failure.target");
    if (node.meta().stackTrace() != null) {
      assertEquals(
          node.meta().stackTrace(),
          failure.path("stack_trace").asText(),
          c + ": failure.stack_trace");
    } else {
      assertFalse(
          failure.hasNonNull("stack_trace"), c + ": stack_trace of a node that records none");
    }
    assertTrue(
        run.out().contains("operator: " + operator + " (" + node.target() + ")"), run::transcript);

    JsonNode inputs = failure.get("inputs");
    assertNotNull(inputs, c + ": failure.inputs");
    Set<String> names = new LinkedHashSet<>();
    for (JsonNode in : inputs) {
      names.add(in.path("name").asText());
      assertTrue(in.get("gd").isArray(), c + ": inputs entry " + in);
      for (JsonNode gd : in.get("gd")) {
        ExprParser.parse(gd.asText());
      }
    }
    assertEquals(Reports.inputsOf(node), names, c + ": failure.inputs names the operator's inputs");
    if (c.verdicts().contains("unproved")) {
      assertCandidate(c, failure, run);
    } else {
      assertWitness(c, failure, run);
    }
  }

  /**
   * A gap in the lemmas comes with the numbers that show it is no bug: the clean expression that
   * held on every draw, and no witness.
   */
  private static void assertCandidate(ExampleCase c, JsonNode failure, CliRun run) {
    JsonNode k = failure.get("candidate");
    assertNotNull(k, () -> c + ": unproved without the candidate that held\n" + run.transcript());
    ExprParser.parse(k.get("gd").asText());
    assertTrue(k.get("draws").asInt() >= 3, c + ": candidate.draws");
    assertFalse(failure.has("witness"), c + ": a gap in the lemmas with a witness");
    assertTrue(run.out().contains("no lemma proves it, but on "), run::transcript);
  }

  /**
   * A bug comes with the numbers that show it: a witness where no clean expression of G_d equals
   * G_s.
   */
  private static void assertWitness(ExampleCase c, JsonNode failure, CliRun run) {
    JsonNode w = failure.get("witness");
    assertNotNull(w, () -> c + ": a failure without a numeric witness\n" + run.transcript());
    assertTrue(w.get("seed").isIntegralNumber(), c + ": witness.seed");
    assertTrue(w.get("shape").isArray(), c + ": witness.shape");
    if (w.has("closest")) {
      ExprParser.parse(w.get("closest").asText());
      assertTrue(
          w.get("differing").asLong() > 0, () -> c + ": a witness that does not differ: " + w);
      assertTrue(w.get("index").isArray(), c + ": witness.index");
    }
    assertFalse(failure.has("candidate"), c + ": a bug with a candidate that holds");
    assertTrue(run.out().contains("  numbers:  on random inputs (seed "), run::transcript);
  }

  private static void assertStats(
      JsonNode stats, Graph gs, DistributedGraph gd, boolean complete, CliRun run) {
    assertNotNull(stats, run::transcript);
    long gsAll = Reports.operators(gs, true);
    long gsOps = stats.path("gs_operators").asLong(-1);
    assertTrue(stats.get("gs_operators").isIntegralNumber(), run::transcript);
    assertTrue(
        gsOps <= gsAll && gsOps >= (complete ? Reports.neededOperators(gs) : 1),
        () ->
            "gs_operators "
                + gsOps
                + " for "
                + gsAll
                + " G_s call_function nodes\n"
                + run.transcript());
    long gdAll = gd.ranks().stream().mapToLong(g -> Reports.operators(g, true)).sum();
    long gdOps = gd.ranks().stream().mapToLong(g -> Reports.operators(g, false)).sum();
    long reported = stats.path("gd_operators").asLong(-1);
    assertTrue(stats.get("gd_operators").isIntegralNumber(), run::transcript);
    assertTrue(
        reported >= gdOps && reported <= gdAll,
        () ->
            "gd_operators "
                + reported
                + " for "
                + gdAll
                + " G_d call_function nodes\n"
                + run.transcript());
    assertTrue(
        stats.path("seconds").isNumber() && stats.get("seconds").asDouble() >= 0, run::transcript);
  }
}
