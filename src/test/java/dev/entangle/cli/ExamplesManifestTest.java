package dev.entangle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.entangle.batch.CaseFolders;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code examples/manifest.json}, which {@code scripts/verify-examples} runs, is in step with the
 * example folders and with the examples table of {@code examples/README.md}.
 */
class ExamplesManifestTest {
  private static final Path EXAMPLES = CliRun.PROJECT_ROOT.resolve("examples");
  private static final String REWRITE =
      "; rewrite it with scripts/entangle manifest examples --name examples -o examples/manifest.json";

  /** A table row: {@code | `case` | ranks | what | `verdict` [at `operator`] |}. */
  private static final Pattern ROW =
      Pattern.compile("^\\| `([^`]+)` \\|[^|]*\\|.*\\| `([a-z|-]+)`(?: at `([^`]+)`)? \\|$");

  private static JsonNode shipped() throws IOException {
    return ExampleCase.JSON.readTree(EXAMPLES.resolve("manifest.json").toFile());
  }

  @Test
  void manifestIsWhatTheCaseFoldersSay() throws IOException {
    JsonNode fresh = CaseFolders.manifest("examples", List.of(EXAMPLES), EXAMPLES);
    assertEquals(
        fresh, shipped(), "examples/manifest.json is out of step with the folders" + REWRITE);
  }

  @Test
  void manifestAgreesWithTheExamplesTable() throws IOException {
    Map<String, String> table = new LinkedHashMap<>();
    for (String line : Files.readAllLines(EXAMPLES.resolve("README.md"))) {
      Matcher m = ROW.matcher(line);
      if (m.matches()) {
        table.put(m.group(1), m.group(2) + (m.group(3) == null ? "" : " at " + m.group(3)));
      }
    }
    Map<String, String> manifest = new LinkedHashMap<>();
    for (JsonNode c : shipped().get("cases")) {
      manifest.put(
          c.get("name").asText(),
          c.get("expect").asText()
              + (c.has("operator") ? " at " + c.get("operator").asText() : ""));
    }
    assertEquals(
        new TreeMap<>(table),
        new TreeMap<>(manifest),
        "the examples table of examples/README.md and examples/manifest.json differ" + REWRITE);
  }
}
