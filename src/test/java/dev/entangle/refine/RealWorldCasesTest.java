package dev.entangle.refine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.entangle.cli.CliRun;
import dev.entangle.cli.RealWorldCase;
import dev.entangle.cli.Reports;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real-world cases under {@code ../shared/realworld} end to end: both graphs imported with the
 * options of the case's {@code expected.json}, then checked with its {@code ri.json}; the verdict
 * must be one of those {@code expected.json} allows. Each check runs under the checker's own time
 * limit ({@value #TIMEOUT_SECONDS} s), after which it would be inconclusive, which no case allows.
 */
@Tag("realworld")
class RealWorldCasesTest {
  static final int TIMEOUT_SECONDS = 600;

  @TempDir Path tmp;

  @TestFactory
  Stream<DynamicTest> everyCaseReachesAnExpectedVerdict() {
    return RealWorldCase.tests(c -> Stream.of(DynamicTest.dynamicTest(c.name(), () -> check(c))));
  }

  private void check(RealWorldCase c) throws Exception {
    Path dir = Files.createTempDirectory(tmp, c.name());
    RealWorldCase.Imported in = c.importInto(dir);
    Path gs = in.gs();
    Path gd = in.gd();

    Path report = dir.resolve("report.json");
    CliRun run =
        CliRun.check(
            gs,
            gd,
            c.dir().resolve("ri.json"),
            "--json",
            report,
            "--timeout",
            String.valueOf(TIMEOUT_SECONDS));
    assertTrue(Files.exists(report), () -> c + ": no report\n" + run.transcript());
    JsonNode json = Reports.read(report);
    String verdict = json.path("verdict").asText();
    assertTrue(
        c.verdicts().contains(verdict),
        () ->
            c
                + ": verdict "
                + verdict
                + ", expected "
                + String.join(" or ", c.verdicts())
                + "\n"
                + run.transcript());
    assertEquals(CliRun.exitCodeOf(verdict), run.exitCode(), run::transcript);
  }
}
