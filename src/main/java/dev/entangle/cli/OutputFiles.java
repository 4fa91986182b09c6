package dev.entangle.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.entangle.graph.JsonTree;
import dev.entangle.util.AtomicFiles;
import dev.entangle.util.InputException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Files the commands write: their folder must exist; each is written whole or not at all ({@link
 * AtomicFiles}); JSON is pretty-printed.
 */
final class OutputFiles {
  private OutputFiles() {}

  /** Fails, saying what to do, when a file to write has no folder to go to. */
  static void requireFolder(Path... files) {
    for (Path p : files) {
      Path parent = p == null ? null : p.toAbsolutePath().getParent();
      if (parent != null && !Files.isDirectory(parent)) {
        throw new InputException(
            "cannot write "
                + p
                + ": the folder "
                + parent
                + " does not exist; create it or choose another path.");
      }
    }
  }

  /** Writes JSON, pretty-printed, with a final newline. */
  static void writeJson(JsonNode json, Path file) {
    writeText(JsonTree.pretty(json) + "\n", file);
  }

  /** Writes JSON, pretty-printed, ending at its closing bracket (the reports' files). */
  static void writeReport(JsonNode json, Path file) {
    writeText(JsonTree.pretty(json), file);
  }

  private static void writeText(String text, Path file) {
    AtomicFiles.writeString(file, text);
  }
}
