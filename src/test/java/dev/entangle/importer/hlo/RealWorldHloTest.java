package dev.entangle.importer.hlo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.entangle.cli.CliRun;
import dev.entangle.cli.RealWorldCase;
import dev.entangle.cli.Reports;
import dev.entangle.graph.Arg;
import dev.entangle.graph.Graph;
import dev.entangle.graph.GraphJson;
import dev.entangle.graph.Node;
import dev.entangle.importer.SourceFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The XLA HLO dumps under {@code ../shared/realworld-hlo} (transformers-neuronx's Llama-3): each
 * case imported with its {@code expected.json}'s arguments and checked with its {@code ri.json}; a
 * bug case must fail at an operator that the instructions it changes (against the correct case of
 * the same G_s) feed. Also: {@link LlamaHlo} writes the dumps' programs, instruction for
 * instruction, so that what it shows at other degrees and depths holds for the dumps' family.
 * Skipped, saying so, where the folder is absent.
 */
@Tag("realworld")
class RealWorldHloTest {
  static final Path ROOT = CliRun.PROJECT_ROOT.resolve("../shared/realworld-hlo").normalize();

  @TempDir Path tmp;

  @TestFactory
  Stream<DynamicTest> everyCaseReachesItsVerdict() {
    if (!Files.isDirectory(ROOT)) {
      return Stream.of(
          DynamicTest.dynamicTest("real-world HLO cases", RealWorldHloTest::assumePresent));
    }
    return cases().stream().map(c -> DynamicTest.dynamicTest(c.name(), () -> check(c)));
  }

  @TestFactory
  Stream<DynamicTest> theGeneratorWritesTheDumpedPrograms() {
    if (!Files.isDirectory(ROOT)) {
      return Stream.of(
          DynamicTest.dynamicTest("real-world HLO programs", RealWorldHloTest::assumePresent));
    }
    return cases().stream()
        .filter(c -> c.verdicts().equals(List.of("refines")))
        .map(
            c ->
                DynamicTest.dynamicTest(
                    c.name(),
                    () -> {
                      int tp =
                          Integer.parseInt(
                              c.importArgs("import_gd")
                                  .get(c.importArgs("import_gd").indexOf("--ranks") + 1));
                      LlamaHlo model = LlamaHlo.llama3(1);
                      assertEquals(
                          instructions(read(c.dir().resolve("gs.hlo"))),
                          instructions(model.program(1, LlamaHlo.Bug.NONE)));
                      assertEquals(
                          instructions(read(c.dir().resolve("gd.hlo"))),
                          instructions(model.program(tp, LlamaHlo.Bug.NONE)));
                    }));
  }

  private void check(RealWorldCase c) throws IOException {
    Path dir = Files.createDirectories(tmp.resolve(c.name()));
    RealWorldCase.Imported in = c.importInto(dir);
    Path report = dir.resolve("report.json");
    CliRun run = CliRun.check(in.gs(), in.gd(), in.ri(), "--json", report);
    JsonNode json = Reports.read(report);
    String verdict = json.path("verdict").asText();
    assertTrue(c.verdicts().contains(verdict), () -> c + ": " + verdict + "\n" + run.transcript());
    if (!verdict.equals("not-refined")) {
      return;
    }
    RealWorldCase correct = correctSibling(c);
    assumeTrue(
        correct != null,
        c + ": no correct case with the same gs.hlo to tell which instructions the bug changes");
    Set<String> changed =
        changedInstructions(c.dir().resolve("gd.hlo"), correct.dir().resolve("gd.hlo"));
    assertFalse(changed.isEmpty(), c + ": its gd.hlo equals " + correct.name() + "'s");
    String op = json.path("failure").path("operator").asText();
    Set<String> fed = users(GraphJson.readDistributed(in.gd()).rank(0), changed);
    assertTrue(
        fed.contains(op),
        () ->
            c
                + ": the failure is at "
                + op
                + ", which "
                + changed
                + " do not feed\n"
                + run.transcript());
    Graph gsGraph = GraphJson.readGraph(in.gs());
    assertTrue(
        gsGraph.node(op).meta().stackTrace().startsWith("File \""), "the report names the source");
  }

  /** The case with the same gs.hlo whose verdict is refines. */
  private static RealWorldCase correctSibling(RealWorldCase bug) {
    String gs = read(bug.dir().resolve("gs.hlo"));
    return cases().stream()
        .filter(c -> c.verdicts().equals(List.of("refines")))
        .filter(c -> read(c.dir().resolve("gs.hlo")).equals(gs))
        .findFirst()
        .orElse(null);
  }

  /**
   * The names of the instructions whose printed text differs between two modules (metadata aside).
   */
  private static Set<String> changedInstructions(Path a, Path b) {
    TreeMap<String, String> x = byName(a);
    TreeMap<String, String> y = byName(b);
    Set<String> out = new HashSet<>();
    x.forEach(
        (name, text) -> {
          if (!text.equals(y.get(name))) {
            out.add(name);
          }
        });
    return out;
  }

  private static TreeMap<String, String> byName(Path p) {
    HloModule m = HloParser.parse(new SourceFile(p.toString(), read(p)));
    TreeMap<String, String> out = new TreeMap<>();
    for (HloInstruction i : m.entry().instructions()) {
      out.put(i.name(), describe(i) + " " + i.operands());
    }
    return out;
  }

  /** Every node that (transitively) reads one of {@code from}. */
  private static Set<String> users(Graph g, Set<String> from) {
    Set<String> out = new HashSet<>();
    Deque<String> work = new ArrayDeque<>(from);
    while (!work.isEmpty()) {
      String name = work.pop();
      for (Node n : g.nodes()) {
        if (reads(n.args(), name) && out.add(n.name())) {
          work.push(n.name());
        }
      }
    }
    return out;
  }

  private static boolean reads(List<Arg> args, String name) {
    for (Arg a : args) {
      if (a instanceof Arg.NodeRef r && r.name().equals(name)
          || a instanceof Arg.ListArg l && reads(l.items(), name)) {
        return true;
      }
    }
    return false;
  }

  /** The ENTRY instructions as sorted text without names and metadata. */
  private static List<String> instructions(String text) {
    HloModule m = HloParser.parse(new SourceFile("program", text));
    List<String> out = new ArrayList<>();
    for (HloInstruction i : m.entry().instructions()) {
      out.add(describe(i));
    }
    out.sort(null);
    return out;
  }

  private static String describe(HloInstruction i) {
    StringBuilder sb = new StringBuilder(i.type() + " " + i.opcode() + "(");
    if (i.operands().isEmpty()) {
      sb.append(i.operandText().strip());
    }
    sb.append(")");
    i.attributes()
        .forEach(
            (k, v) -> {
              if (!k.equals("metadata") && !k.equals("to_apply")) {
                sb.append(", ").append(k).append('=').append(v);
              }
            });
    return sb.toString();
  }

  private static void assumePresent() {
    assumeTrue(
        Files.isDirectory(ROOT), "skipped: the real-world HLO folder " + ROOT + " is absent");
  }

  private static List<RealWorldCase> cases() {
    List<RealWorldCase> out = new ArrayList<>();
    try (Stream<Path> dirs = Files.list(ROOT)) {
      for (Path d : dirs.filter(Files::isDirectory).sorted().toList()) {
        Path e = d.resolve("expected.json");
        if (Files.exists(e)) {
          out.add(new RealWorldCase(d.getFileName().toString(), d, Reports.read(e)));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  private static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
