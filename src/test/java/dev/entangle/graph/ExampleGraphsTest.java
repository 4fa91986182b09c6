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

/** Every graph or G_d file under {@code examples/} reads, and writes back to the same graph. */
class ExampleGraphsTest {
  @TempDir Path dir;

  @Test
  void everyExampleGraphReadsAndRoundTrips() throws IOException {
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
    for (Path file : graphs) {
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
