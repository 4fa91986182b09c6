package dev.entangle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Inputs are bounded: deep nesting, pipes and devices, out-of-range numbers and empty graphs end as
 * one located paragraph and exit 2, never a stack trace or a hang.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BoundedInputsTest {
  private static final Path MLP = CliRun.PROJECT_ROOT.resolve("examples/mlp-tp2");
  private static final Path GS = MLP.resolve("gs.json");
  private static final Path GD = MLP.resolve("gd.json");
  private static final Path RI = MLP.resolve("ri.json");

  @TempDir Path tmp;

  @Test
  void deepJsonIsRefusedWithoutQuotingTheReadersSettings() throws IOException {
    Path deep =
        Files.writeString(
            tmp.resolve("deep.json"),
            "{\"format\": \"entangle-fx/1\", \"nodes\": "
                + "[".repeat(5000)
                + "]".repeat(5000)
                + "}");
    CliRun run = CliRun.check(deep, GD, RI).assertInputError("deep.json", "nesting depth");
    assertTrue(!run.err().contains("StreamReadConstraints"), run::transcript);
  }

  @Test
  void aDeepRelationExpressionIsALocatedError() throws IOException {
    String e = "r0.x";
    for (int i = 0; i < 5000; i++) {
      e = "concat(" + e + ", dim=0)";
    }
    String rel =
        Files.readString(RI)
            .replace(
                "{\"gs\": \"x\", \"replicate\": true}", "{\"gs\": \"x\", \"gd\": \"" + e + "\"}");
    Path ri = Files.writeString(tmp.resolve("ri.json"), rel);
    CliRun run = CliRun.check(GS, GD, ri).assertInputError("ri.json", "more than 200 levels deep");
    assertTrue(run.err().length() < 4000, run::transcript);
  }

  @Test
  void aDeepLemmaIsALocatedError() throws IOException {
    Path dir = Files.createDirectory(tmp.resolve("lemmas"));
    Files.writeString(
        dir.resolve("deep.lemmas"),
        "(rule d " + "(neg ".repeat(50_000) + "?x" + ")".repeat(50_000) + " ?x)\n");
    CliRun.check(GS, GD, RI, "--lemmas", dir)
        .assertInputError("deep.lemmas:1:", "nested more than 200 levels deep");
  }

  @Test
  void pipesAndDevicesAreNeverOpened() throws Exception {
    Path fifo = tmp.resolve("gs.json");
    Process p = new ProcessBuilder("mkfifo", fifo.toString()).start();
    assumeTrue(p.waitFor() == 0, "mkfifo is not available");
    CliRun.check(fifo, GD, RI).assertInputError("gs.json", "not a regular file");
    CliRun.check(GS, fifo, RI).assertInputError("not a regular file");
    CliRun.check(GS, GD, fifo).assertInputError("not a regular file");
    Path dir = Files.createDirectory(tmp.resolve("lemmas"));
    Files.move(fifo, dir.resolve("pipe.lemmas"));
    CliRun.check(GS, GD, RI, "--lemmas", dir).assertInputError("pipe.lemmas", "not a regular file");
    Path zero = Path.of("/dev/zero");
    assumeTrue(Files.exists(zero));
    CliRun.run("import", zero, "-o", tmp.resolve("z.json"))
        .assertInputError("/dev/zero", "not a regular file");
    CliRun.check(GS, zero, RI).assertInputError("/dev/zero", "not a regular file");
  }

  @Test
  void outOfRangeLimitsAreUsageErrors() {
    for (String[] bad :
        new String[][] {
          {"--timeout", "1e300"},
          {"--timeout", "NaN"},
          {"--timeout", "-1"},
          {"--numeric-budget", "NaN"},
          {"--numeric-budget", "Infinity"},
          {"--node-limit", "0"},
          {"--jobs", "0"}
        }) {
      CliRun run = CliRun.check(GS, GD, RI, bad[0], bad[1]);
      assertEquals(2, run.exitCode(), run::transcript);
      assertTrue(
          run.err().startsWith("entangle: " + bad[0].replace("--jobs", "--jobs")), run::transcript);
      CliRun batch = CliRun.run("batch", CliRun.PROJECT_ROOT.resolve("examples"), bad[0], bad[1]);
      assertEquals(2, batch.exitCode(), batch::transcript);
      assertEquals("", batch.out(), batch::transcript);
    }
  }

  @Test
  void checkAndBatchShowTheSameDefaults() {
    String check = CliRun.run("check", "--help").out();
    String batch = CliRun.run("batch", "--help").out();
    for (String option : new String[] {"--timeout", "--node-limit", "--numeric-budget", "--seed"}) {
      assertEquals(defaultOf(check, option), defaultOf(batch, option), option);
    }
    assertEquals("600", defaultOf(check, "--timeout"));
  }

  private static String defaultOf(String help, String option) {
    int at = help.lastIndexOf(option + "=");
    int d = help.indexOf("(default: ", at);
    return help.substring(d + 10, help.indexOf(')', d)).strip();
  }

  @Test
  void aGraphWithoutOutputsIsAnErrorNotAVacuousRefines() throws IOException {
    String text = Files.readString(GS);
    int out = text.lastIndexOf("{\"name\": \"output\"");
    assumeTrue(out > 0);
    Path gs =
        Files.writeString(
            tmp.resolve("gs.json"),
            text.substring(0, out)
                + "{\"name\": \"output\", \"op\": \"output\", \"target\": \"output\", \"args\": [[]]}]}");
    CliRun.check(gs, GD, RI).assertInputError("gs.json", "returns no tensor");
  }

  @Test
  void aHugeNameIsShortenedInTheMessage() throws IOException {
    String huge = "n".repeat(1_000_000);
    String text = Files.readString(GS);
    int out = text.lastIndexOf("{\"name\": \"output\"");
    assumeTrue(out > 0);
    Path gs =
        Files.writeString(
            tmp.resolve("gs.json"),
            text.substring(0, out)
                + "{\"name\": \"output\", \"op\": \"output\", \"target\": \"output\", \"args\":"
                + " [[{\"node\": \""
                + huge
                + "\"}]]}]}");
    CliRun run = CliRun.check(gs, GD, RI).assertInputError("gs.json");
    assertTrue(run.err().length() < 2000, () -> "message of " + run.err().length() + " characters");
  }

  @Test
  void aCheckOutOfTimeSaysSoAndExits3() throws IOException {
    // a long chain of negations: reading, lowering and checking it take a while
    Path g = ChainGraph.write(tmp, 40_000);
    Path ri = tmp.resolve("ri.json");
    CliRun run = CliRun.check(g, g, ri, "--timeout", "0.05");
    assertEquals(3, run.exitCode(), run::transcript);
    assertEquals("inconclusive", run.verdictLine(), run::transcript);
    assertTrue(!run.out().contains("never computes"), run::transcript);
  }
}
