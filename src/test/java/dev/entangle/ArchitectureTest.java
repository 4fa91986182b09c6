package dev.entangle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

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
  void theCoreLanguageStandsAlone() throws IOException {
    assertEquals(
        List.of(),
        importing(
            "core",
            "graph",
            "relation",
            "importer",
            "lower",
            "rules",
            "refine",
            "eval",
            "numbers",
            "check",
            "batch",
            "draft",
            "cli"));
  }

  @Test
  void theAlgorithmReadsOnlyCorePrograms() throws IOException {
    assertEquals(
        List.of(), importing("refine", "graph", "relation", "importer", "cli", "eval", "numbers"));
  }

  @Test
  void theLemmaLanguageReadsOnlyTheCoreLanguage() throws IOException {
    assertEquals(
        List.of(),
        importing("rules", "graph", "relation", "importer", "lower", "refine", "eval", "cli"));
  }

  @Test
  void theEngineKnowsNothingOfTensors() throws IOException {
    assertEquals(
        List.of(),
        importing(
            "egraph", "graph", "core", "rules", "lower", "refine", "relation", "eval", "cli"));
  }

  @Test
  void theInterpreterRunsLoweredProgramsOnly() throws IOException {
    assertEquals(
        List.of(),
        importing(
            "eval",
            "graph",
            "relation",
            "importer",
            "refine",
            "rules",
            "egraph",
            "cli",
            "numbers"));
  }

  @Test
  void lowersAreOneStagePerFrontEnd() throws IOException {
    assertEquals(List.of(), importing("lower", "refine", "rules", "eval", "numbers", "cli"));
    assertEquals(List.of(), importing("lower", "importer", "batch", "check", "draft"));
    assertFalse(Files.exists(SRC.resolve("ops")), "the package ops is gone: core and lower");
    assertFalse(Files.exists(SRC.resolve("collectives")), "collectives are lower.collectives");
  }

  @Test
  void everyPackageSaysWhatItIs() throws IOException {
    List<String> missing = new ArrayList<>();
    try (Stream<Path> dirs = Files.walk(SRC)) {
      for (Path d : dirs.filter(Files::isDirectory).toList()) {
        boolean hasJava;
        try (Stream<Path> fs = Files.list(d)) {
          hasJava = fs.anyMatch(f -> f.toString().endsWith(".java"));
        }
        if (hasJava && !Files.exists(d.resolve("package-info.java"))) {
          missing.add(SRC.relativize(d).toString());
        }
      }
    }
    assertEquals(List.of(), missing);
  }

  @Test
  void onlyTheCommandLineIsAtTheTop() throws IOException {
    for (String pkg :
        List.of(
            "graph",
            "relation",
            "importer",
            "core",
            "lower",
            "egraph",
            "rules",
            "refine",
            "eval",
            "numbers",
            "check",
            "batch",
            "draft")) {
      assertEquals(List.of(), importing(pkg, "cli"), pkg);
    }
  }
}
