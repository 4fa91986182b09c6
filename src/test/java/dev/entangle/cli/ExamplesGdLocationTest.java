package dev.entangle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every bug example's report (not a correct one's that is unproved) names first the line of the
 * distributed code its {@code expected.json} gives as {@code gd_location}, in the JSON report, the
 * text report and SARIF.
 */
class ExamplesGdLocationTest {
  @TempDir Path tmp;

  static Stream<ExampleCase> bugs() {
    return ExampleCase.all().stream()
        .filter(c -> !c.refines() && !c.verdicts().contains("unproved"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("bugs")
  void theFirstGdLocationIsTheExpectedLine(ExampleCase c) throws IOException {
    JsonNode expected = c.expected().get("gd_location");
    assertNotNull(expected, c.name() + "/expected.json has no gd_location");
    Path json = tmp.resolve("r.json");
    Path sarif = tmp.resolve("r.sarif");
    CliRun run = c.check("--json", json, "--sarif", sarif);
    assertEquals(1, run.exitCode(), run::transcript);
    JsonNode locations = ExampleCase.JSON.readTree(json.toFile()).at("/failure/gd_locations");
    assertFalse(locations.isEmpty(), run::transcript);
    assertEquals(expected.asText(), locations.get(0).get("at").asText(), run::transcript);
    String firstLine =
        run.out()
            .lines()
            .dropWhile(l -> !l.startsWith("  in G_d, nearest first"))
            .skip(1)
            .findFirst()
            .orElse("");
    assertEquals(
        expected.asText(), firstLine.strip().split(" ")[0], "the text report: " + run.transcript());
    JsonNode loc =
        ExampleCase.JSON
            .readTree(sarif.toFile())
            .at("/runs/0/results/0/locations/0/physicalLocation");
    String at = expected.asText();
    int colon = at.lastIndexOf(':');
    assertEquals(at.substring(0, colon), loc.at("/artifactLocation/uri").asText());
    assertEquals(Integer.parseInt(at.substring(colon + 1)), loc.at("/region/startLine").asInt());
  }
}
