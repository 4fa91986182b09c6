package dev.entangle;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The layering docs/architecture.md states, held by the imports. */
class ArchitectureTest {
  private static final Path SRC = Path.of("src/main/java/dev/entangle");

  /** The files of {@code pkg} that import any of {@code forbidden}. */
  private static List<String> importing(String pkg, String... forbidden) throws IOException {
    List<String> out = new ArrayList<>();
    try (Stream<Path> files = Files.walk(SRC.resolve(pkg))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        for (String line : Files.readAllLines(f)) {
          for (String p : forbidden) {
            if (line.startsWith("import dev.entangle." + p + ".")) {
              out.add(f.getFileName() + ": " + line);
            }
          }
        }
      }
    }
    return out;
  }

  @Test
  void theAlgorithmReadsOnlyCorePrograms() throws IOException {
    assertEquals(
        List.of(),
        importing("refine", "graph", "collectives", "importer", "cli", "eval", "numbers"));
  }

  @Test
  void theEngineKnowsNothingOfTensors() throws IOException {
    assertEquals(
        List.of(),
        importing(
            "egraph",
            "graph",
            "ops",
            "rules",
            "lower",
            "refine",
            "collectives",
            "relation",
            "cli"));
  }

  @Test
  void theInterpreterKnowsNothingOfProofs() throws IOException {
    assertEquals(List.of(), importing("eval", "refine", "rules", "egraph", "cli", "numbers"));
  }

  @Test
  void onlyTheCommandLineIsAtTheTop() throws IOException {
    for (String pkg :
        List.of(
            "graph",
            "relation",
            "importer",
            "ops",
            "collectives",
            "lower",
            "egraph",
            "rules",
            "refine",
            "eval",
            "numbers")) {
      assertEquals(List.of(), importing(pkg, "cli"), pkg);
    }
  }
}
