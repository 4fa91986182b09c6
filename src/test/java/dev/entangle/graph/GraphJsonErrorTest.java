package dev.entangle.graph;

import static dev.entangle.graph.GraphFiles.assertContains;
import static dev.entangle.graph.GraphFiles.assertOneParagraph;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.entangle.util.InputException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A graph file that is not there. Every way a graph file can be wrong is a data file under {@code
 * src/test/resources/bad/graphs}, run by {@code BadInputsTest}.
 */
class GraphJsonErrorTest {
  @TempDir Path dir;

  @Test
  void missingFile() {
    Path file = dir.resolve("nowhere.json");
    InputException e = assertThrows(InputException.class, () -> GraphJson.readGraph(file));
    assertContains(e.getMessage(), file.toString(), "no such file");
    assertOneParagraph(e.getMessage());
  }
}
