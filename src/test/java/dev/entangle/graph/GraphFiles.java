package dev.entangle.graph;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.util.InputException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Function;

/** Test fixtures: graph files written from compact text, and checks on error messages. */
final class GraphFiles {
  private GraphFiles() {}

  /** JSON from text written with single quotes, which read better inside Java strings. */
  static String json(String singleQuoted) {
    return singleQuoted.replace('\'', '"');
  }

  static Path write(Path dir, String name, String text) {
    try {
      Path file = dir.resolve(name);
      Files.writeString(file, text, StandardCharsets.UTF_8);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A graph file holding {@code nodes} (single-quoted JSON, without the brackets). */
  static String graph(String nodes) {
    return json("{'format': 'entangle-fx/1', 'nodes': [" + nodes + "]}");
  }

  static final String X =
      "{'name': 'x', 'op': 'placeholder', 'target': 'x',"
          + " 'meta': {'shape': [8, 16], 'dtype': 'float32'}}";

  static final String OUT_X =
      "{'name': 'output', 'op': 'output', 'target': 'output'," + " 'args': [[{'node': 'x'}]]}";

  /** Reads {@code text} with {@code reader} and returns the message it fails with. */
  static String errorOf(Path dir, String text, Function<Path, ?> reader) {
    Path file = write(dir, "bad.json", text);
    InputException e = assertThrows(InputException.class, () -> reader.apply(file));
    assertOneParagraph(e.getMessage());
    assertTrue(e.getMessage().startsWith(file.toString()), e.getMessage());
    return e.getMessage();
  }

  static void assertOneParagraph(String message) {
    assertFalse(message.contains("\n\n"), message);
    assertFalse(message.contains("Exception"), message);
    assertFalse(message.contains("com.fasterxml"), message);
  }

  static void assertContains(String message, String... parts) {
    for (String p : parts) {
      assertTrue(message.contains(p), () -> "expected <" + p + "> in: " + message);
    }
  }
}
