package dev.entangle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.entangle.batch.CaseFolders;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The manifest {@code entangle batch examples} (and so {@code scripts/verify-examples}) runs, made
 * from the example folders, agrees with the examples table of {@code examples/README.md}: the same
 * cases, verdicts and failing operators.
 */
class ExamplesManifestTest {
  private static final Path EXAMPLES = CliRun.PROJECT_ROOT.resolve("examples");

  /** A table row: {@code | `case` | ranks | what | `verdict` [at `operator`] |}. */
  private static final Pattern ROW =
      Pattern.compile("^\\| `([^`]+)` \\|[^|]*\\|.*\\| `([a-z|-]+)`(?: at `([^`]+)`)? \\|$");

  private static JsonNode manifest() {
    return CaseFolders.manifest("examples", List.of(EXAMPLES), EXAMPLES);
  }

  @Test
  void caseFoldersAgreeWithTheExamplesTable() throws IOException {
    Map<String, String> table = new LinkedHashMap<>();
    for (String line : Files.readAllLines(EXAMPLES.resolve("README.md"))) {
      Matcher m = ROW.matcher(line);
      if (m.matches()) {
        table.put(m.group(1), m.group(2) + (m.group(3) == null ? "" : " at " + m.group(3)));
      }
    }
    Map<String, String> manifest = new LinkedHashMap<>();
    for (JsonNode c : manifest().get("cases")) {
      manifest.put(
          c.get("name").asText(),
          c.get("expect").asText()
              + (c.has("operator") ? " at " + c.get("operator").asText() : ""));
    }
    assertEquals(
        new TreeMap<>(table),
        new TreeMap<>(manifest),
        "the examples table of examples/README.md and the example folders' expected.json differ");
  }

  @Test
  void theReadmeExamplesSectionNamesEveryCase() throws IOException {
    String readme = Files.readString(CliRun.PROJECT_ROOT.resolve("README.md"));
    int from = readme.indexOf("\n## Examples\n");
    int to = readme.indexOf("\n## ", from + 1);
    String section = readme.substring(from, to < 0 ? readme.length() : to);
    List<String> missing = new ArrayList<>();
    for (JsonNode c : manifest().get("cases")) {
      String name = c.get("name").asText();
      if (!section.contains("`" + name + "`")) {
        missing.add(name);
      }
    }
    assertEquals(List.of(), missing, "cases the Examples section of README.md does not name");
  }

  /** README's sample run of {@code scripts/verify-examples} counts every example. */
  @Test
  void theReadmesSampleBatchRunCountsEveryCase() throws IOException {
    String readme = Files.readString(CliRun.PROJECT_ROOT.resolve("README.md"));
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("\\n(\\d+) cases, (\\d+) met their expectation in")
            .matcher(readme);
    assertTrue(m.find(), "README shows no sample batch run");
    int cases = manifest().get("cases").size();
    assertEquals(cases + " " + cases, m.group(1) + " " + m.group(2), "README's sample batch run");
  }
}
