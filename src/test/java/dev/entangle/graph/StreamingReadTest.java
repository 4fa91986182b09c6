package dev.entangle.graph;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.util.InputException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Graph files are read node by node ({@link GraphDecoder#decodeStreaming}); the streamed graphs are
 * the ones the whole-tree decoder makes, and a file with a problem gets the tree decoder's message.
 */
class StreamingReadTest {
  @TempDir Path dir;

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
