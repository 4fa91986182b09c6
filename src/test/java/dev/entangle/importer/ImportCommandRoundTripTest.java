package dev.entangle.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.cli.CliRun;
import dev.entangle.cli.RealWorldCase;
import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.Graph;
import dev.entangle.graph.GraphJson;
import dev.entangle.graph.Node;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code entangle import} on every printed graph under {@code ../shared/realworld}, with the
 * options of its case's {@code expected.json}: the JSON it writes reads back to the very nodes
 * (names, targets, arguments, keyword arguments, meta) that the importer builds in memory.
 */
class ImportCommandRoundTripTest {
  @TempDir Path tmp;

  @Test
  void everyPrintedGraphIsNamedByItsCase() {
    Set<Path> named = new HashSet<>();
    for (RealWorldCase c : RealWorldCase.all()) {
      named.addAll(c.importFiles("import_gs"));
      named.addAll(c.importFiles("import_gd"));
    }
    for (Path py : RealWorldCase.printedGraphs()) {
      assertTrue(
          named.contains(py), py + " is imported by no case's expected.json, so no test reads it");
    }
  }

  @TestFactory
  Stream<DynamicTest> importedJsonReadsBackToTheImportedGraph() {
    return RealWorldCase.tests(
        c ->
            Stream.of("import_gs", "import_gd")
                .map(
                    side ->
                        DynamicTest.dynamicTest(c.name() + " " + side, () -> roundTrip(c, side))));
  }

  private void roundTrip(RealWorldCase c, String side) throws Exception {
    Path out = Files.createTempDirectory(tmp, c.name()).resolve(side + ".json");
    CliRun run = c.runImport(side, out);
    assertEquals(0, run.exitCode(), run::transcript);
    assertEquals("wrote " + out, run.out().strip(), run::transcript);
    assertEquals("", run.err(), run::transcript);

    List<Path> files = c.importFiles(side);
    ImportOptions opts = c.importOptions(side);
    if (files.size() == 1) {
      assertSameNodes(
          GraphCodeImporter.importGraph(files.get(0), opts),
          GraphJson.readGraph(out),
          files.get(0));
      DistributedGraph asGd = GraphJson.readDistributed(out);
      assertEquals(1, asGd.worldSize(), out + " read as G_d");
    } else {
      DistributedGraph memory = GraphCodeImporter.importRanks(files, opts);
      DistributedGraph read = GraphJson.readDistributed(out);
      assertEquals(files.size(), read.worldSize(), out.toString());
      assertEquals(memory.worldSize(), read.worldSize(), out.toString());
      assertEquals(memory.processGroups(), read.processGroups(), out + " process_groups");
      for (int k = 0; k < files.size(); k++) {
        assertSameNodes(memory.rank(k), read.rank(k), files.get(k));
      }
    }
  }

  private static void assertSameNodes(Graph memory, Graph read, Path source) {
    assertTrue(memory.nodes().size() > 1, source + " imports to an empty graph");
    List<String> differences = new ArrayList<>();
    int n = Math.min(memory.nodes().size(), read.nodes().size());
    for (int i = 0; i < n && differences.size() < 5; i++) {
      Node a = memory.nodes().get(i);
      Node b = read.nodes().get(i);
      if (!a.equals(b)) {
        differences.add("node " + i + ":\n  imported: " + a + "\n  read:     " + b);
      }
    }
    assertEquals(memory.nodes().size(), read.nodes().size(), source + ": node count after JSON");
    assertTrue(
        differences.isEmpty(),
        () -> source + ": nodes differ after JSON:\n" + String.join("\n", differences));
  }
}
