package dev.entangle.graph;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every graph or G_d file under {@code examples/} reads, and writes back to the same graph; read
 * node by node ({@link GraphDecoder#decodeStreaming}), it is the graph the whole tree's decoder
 * makes.
 */
class ExampleGraphsTest {
  @TempDir Path dir;

  /** The graph and G_d files under {@code examples/}. */
  static List<Path> exampleGraphs() throws IOException {
    Path examples = Path.of("examples");
    Assumptions.assumeTrue(Files.isDirectory(examples), "no examples/ folder in the project");
    List<Path> graphs;
    try (Stream<Path> files = Files.walk(examples)) {
      graphs =
          files
              .filter(p -> p.toString().endsWith(".json"))
              .filter(ExampleGraphsTest::isGraph)
              .sorted()
              .toList();
    }
    Assumptions.assumeFalse(graphs.isEmpty(), "examples/ holds no graph files yet");
    return graphs;
  }

  @Test
  void everyExampleStreamsToTheGraphsOfTheWholeTree() throws IOException {
    for (Path file : exampleGraphs()) {
      String source = file.toString();
      DistributedGraph streamed =
          JsonFiles.stream(file, "G_d file", p -> DistributedDecoder.decodeStreaming(p, source));
      DistributedGraph tree = DistributedDecoder.decode(JsonFiles.read(file, "G_d file"), source);
      assertEquals(tree.worldSize(), streamed.worldSize(), source);
      assertEquals(tree.processGroups(), streamed.processGroups(), source);
      for (int k = 0; k < tree.worldSize(); k++) {
        assertEquals(tree.rank(k).nodes(), streamed.rank(k).nodes(), source + " rank " + k);
        assertEquals(tree.rank(k).name(), streamed.rank(k).name(), source + " rank " + k);
      }
      if (file.getFileName().toString().equals("gs.json")) {
        Graph g =
            JsonFiles.stream(
                file, "graph file", p -> GraphDecoder.decodeStreaming(p, source, true));
        Graph whole = GraphDecoder.decode(JsonFiles.read(file, "graph file"), source, true);
        assertEquals(whole.nodes(), g.nodes(), source);
      }
    }
  }

  @Test
  void everyExampleGraphReadsAndRoundTrips() throws IOException {
    for (Path file : exampleGraphs()) {
      DistributedGraph d = GraphJson.readDistributed(file);
      Path copy = dir.resolve("copy.json");
      GraphJson.write(d, copy);
      DistributedGraph back = GraphJson.readDistributed(copy);
      assertEquals(d.worldSize(), back.worldSize(), file.toString());
      for (int k = 0; k < d.worldSize(); k++) {
        assertEquals(d.rank(k).nodes(), back.rank(k).nodes(), file + " rank " + k);
      }
    }
  }

  private static boolean isGraph(Path file) {
    try {
      JsonNode format = JsonFiles.mapper().readTree(file.toFile()).get("format");
      return format != null && format.asText().equals("entangle-fx/1");
    } catch (IOException e) {
      return true;
    }
  }
}
