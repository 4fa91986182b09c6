package dev.entangle.batch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.cli.CliRun;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A manifest's values are range-checked, and a case's missing file stops that case only. */
class ManifestLimitsTest {
  private static final Path MLP = CliRun.PROJECT_ROOT.resolve("examples/mlp-tp2");

  @TempDir Path tmp;

  private Path manifest(String... cases) throws IOException {
    return Files.writeString(
        tmp.resolve("m.json"),
        "{\"format\": \"entangle-batch/1\", \"name\": \"t\", \"cases\": ["
            + String.join(",", cases)
            + "]}");
  }

  private static String mlpCase(String name, String gs, String extra) {
    return "{\"name\": \""
        + name
        + "\", \"gs\": \""
        + gs
        + "\", \"gd\": \""
        + MLP.resolve("gd.json")
        + "\", \"rel\": \""
        + MLP.resolve("ri.json")
        + "\", "
        + extra
        + "}";
  }

  @Test
  void anExpectationWithAnEmptyVerdictIsRefused() throws IOException {
    Path m = manifest(mlpCase("a", MLP.resolve("gs.json").toString(), "\"expect\": \"refines|\""));
    CliRun.run("batch", m).assertInputError("m.json", "cases[0]", "\"expect\" must name verdicts");
  }

  @Test
  void aHugeOrNonPositiveTimeoutIsRefused() throws IOException {
    for (String t : new String[] {"1e300", "0", "-3"}) {
      Path m =
          manifest(
              mlpCase(
                  "a",
                  MLP.resolve("gs.json").toString(),
                  "\"expect\": \"refines\", \"timeout\": " + t));
      CliRun.run("batch", m).assertInputError("m.json", "\"timeout\" must be a positive number");
    }
  }

  @Test
  void aMissingCaseFileIsReportedInItsRowAndTheOthersRun() throws IOException {
    Path m =
        manifest(
            mlpCase("gone", "no-such-gs.json", "\"expect\": \"refines\""),
            mlpCase("good", MLP.resolve("gs.json").toString(), "\"expect\": \"refines\""));
    CliRun run = CliRun.run("batch", m);
    assertEquals(1, run.exitCode(), run::transcript);
    assertTrue(run.out().contains("no-such-gs.json does not exist"), run::transcript);
    assertTrue(
        run.out().lines().anyMatch(l -> l.startsWith("good ") && l.contains(" refines ")),
        run::transcript);
    assertTrue(run.out().contains("2 cases, 1 met their expectation"), run::transcript);
  }
}
