package dev.entangle.graph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.util.InputException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Graph files are read node by node ({@link GraphDecoder#decodeStreaming}); the streamed graphs are
 * the ones the whole-tree decoder makes, and a file with a problem gets the tree decoder's message.
 */
class StreamingReadTest {
  @TempDir Path dir;

  @Test
  void everyExampleStreamsToTheGraphsOfTheWholeTree() throws IOException {
    Path examples = Path.of("examples");
    Assumptions.assumeTrue(Files.isDirectory(examples), "no examples/ folder in the project");
    List<Path> graphs;
    try (Stream<Path> files = Files.walk(examples)) {
      graphs =
          files.filter(p -> p.getFileName().toString().matches("g[sd]\\.json")).sorted().toList();
    }
    assertFalse(graphs.isEmpty(), "examples/ holds graph files");
    for (Path file : graphs) {
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
        assertEquals(
            GraphDecoder.decode(JsonFiles.read(file, "graph file"), source, true).nodes(),
            g.nodes(),
            source);
      }
    }
  }

  @Test
  void aReferenceToALaterNodeIsReportedAsTheTreeDecoderReportsIt() {
    Path file =
        GraphFiles.write(
            dir,
            "later.json",
            GraphFiles.json(
                "{'format': 'entangle-fx/1', 'nodes': ["
                    + "{'name': 'y', 'op': 'call_function', 'target': 'aten.relu.default',"
                    + " 'args': [{'node': 'x'}], 'meta': {'shape': [2], 'dtype': 'float32'}},"
                    + "{'name': 'x', 'op': 'placeholder', 'target': 'x',"
                    + " 'meta': {'shape': [2], 'dtype': 'float32'}},"
                    + "{'name': 'output', 'op': 'output', 'target': 'output',"
                    + " 'args': [[{'node': 'y'}]]}]}"));
    String source = file.toString();
    InputException streamed =
        assertThrows(
            InputException.class,
            () ->
                JsonFiles.stream(
                    file, "graph file", p -> GraphDecoder.decodeStreaming(p, source, true)));
    assertTrue(streamed.getMessage().contains("does not exist"), streamed.getMessage());
    InputException read = assertThrows(InputException.class, () -> GraphJson.readGraph(file));
    assertTrue(read.getMessage().contains("topological order"), read.getMessage());
    assertTrue(read.getMessage().contains("later.json"), read.getMessage());
  }

  @Test
  void aFileCutShortIsAJsonErrorWithItsLine() {
    Path file =
        GraphFiles.write(
            dir,
            "cut.json",
            GraphFiles.json(
                "{'format': 'entangle-fx/1', 'world_size': 1, 'ranks': [{'nodes': ["
                    + "{'name': 'x', 'op': 'placeholder', 'target': 'x',"
                    + " 'meta': {'shape': [2], 'dtype': 'float32'}},\n"));
    InputException e = assertThrows(InputException.class, () -> GraphJson.readDistributed(file));
    assertTrue(e.getMessage().contains("malformed JSON"), e.getMessage());
    assertTrue(e.getMessage().contains("line "), e.getMessage());
  }
}
