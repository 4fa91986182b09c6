package dev.entangle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.batch.ManifestReader;
import dev.entangle.graph.GraphJson;
import dev.entangle.relation.RelationReader;
import dev.entangle.rules.LemmaLibrary;
import dev.entangle.util.InputException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Bad input is test data: every {@code src/test/resources/bad/KIND/NAME.EXT} is read the way the
 * command line reads a file of its kind, and must fail with exactly the message in {@code
 * NAME.expected} beside it. Kinds: {@code lemmas} (lemma files, compiler-style messages), {@code
 * graphs} (graph files), {@code distributed} (G_d files), {@code relations} (relation files, for a
 * G_d of two ranks), {@code manifests} (batch manifests). Messages other than lemma errors are one
 * paragraph without a stack trace.
 */
class BadInputsTest {
  private static final Path ROOT = Path.of("src/test/resources/bad");

  @TestFactory
  Stream<DynamicTest> everyBadFileFailsWithItsMessage() throws IOException {
    List<DynamicTest> tests = new ArrayList<>();
    add(tests, "lemmas", ".lemmas", false, f -> LemmaLibrary.parse(Map.of(f.toString(), read(f))));
    add(tests, "graphs", ".json", true, GraphJson::readGraph);
    add(tests, "distributed", ".json", true, GraphJson::readDistributed);
    add(tests, "relations", ".json", true, f -> RelationReader.read(f, 2));
    add(tests, "manifests", ".json", true, ManifestReader::read);
    assertFalse(tests.isEmpty(), "no bad-input cases under " + ROOT);
    return tests.stream();
  }

  private static void add(
      List<DynamicTest> tests, String kind, String ext, boolean oneParagraph, Consumer<Path> reader)
      throws IOException {
    try (Stream<Path> files = Files.list(ROOT.resolve(kind))) {
      for (Path f : files.filter(p -> p.toString().endsWith(ext)).sorted().toList()) {
        String name = f.getFileName().toString();
        Path expected =
            f.resolveSibling(name.substring(0, name.length() - ext.length()) + ".expected");
        tests.add(
            DynamicTest.dynamicTest(
                kind + "/" + name,
                () -> {
                  assertTrue(Files.exists(expected), "no " + expected + " beside " + f);
                  String message =
                      assertThrows(InputException.class, () -> reader.accept(f)).getMessage();
                  assertEquals(read(expected).stripTrailing(), message);
                  if (oneParagraph) {
                    assertFalse(message.contains("\n\n") || message.contains("Exception"), message);
                    assertTrue(
                        message.startsWith(f.toString()),
                        "the message names the file first: " + message);
                  }
                }));
      }
    }
  }

  private static String read(Path f) {
    try {
      return Files.readString(f, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
