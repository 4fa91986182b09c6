package dev.entangle.refine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.cli.CliRun;
import dev.entangle.cli.RealWorldCase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Options that promise the same outcome keep it: checking operators ahead of their turn ({@code
 * --jobs 3} against one thread) and replaying the saturations of operators built alike (against
 * {@code --no-replay}) change nothing a user sees (the verdict, the output relation, the failure,
 * the verbose trace, the JSON report), on examples of several layers and ranks, on the real-world
 * cases, and on a bug in a second layer whose first layer is right (so its saturations are kept).
 */
class SameOutcomeOptionsTest {
  /** Each pair of option sets whose outcomes must be alike. */
  private static final List<Object[][]> ALIKE =
      List.of(
          new Object[][] {{"--jobs", 1}, {"--jobs", 3}},
          new Object[][] {{"--jobs", 1}, {"--jobs", 1, "--no-replay"}});

  @TempDir Path tmp;

  @Test
  void examplesOfSeveralLayersAndRanksGiveTheSameOutput() throws IOException {
    for (String name : new String[] {"gpt-tp4-l2", "gpt-tp6-l1", "sp-layernorm-tp8"}) {
      Path d = CliRun.PROJECT_ROOT.resolve("examples").resolve(name);
      same(name, d.resolve("gs.json"), d.resolve("gd.json"), d.resolve("ri.json"));
    }
  }

  /** The first layer is right and the second scales its attention scores twice as much. */
  @Test
  void aBugInTheSecondLayerGivesTheSameFailure() throws IOException {
    Path d = CliRun.PROJECT_ROOT.resolve("examples").resolve("gpt-tp4-l2");
    String gd = Files.readString(d.resolve("gd.json"));
    String scale = "{\"node\": \"bmm_2\"}, 1.4142135623730951";
    assertTrue(gd.contains(scale), "the example's second layer no longer divides bmm_2 so");
    Path broken =
        Files.writeString(
            tmp.resolve("broken-gd.json"),
            gd.replaceFirst(Pattern.quote(scale), "{\"node\": \"bmm_2\"}, 2.8284271247461903"));
    same("broken", d.resolve("gs.json"), broken, d.resolve("ri.json"));
    for (Object[][] pair : ALIKE) {
      CliRun run = CliRun.check(d.resolve("gs.json"), broken, d.resolve("ri.json"), pair[1]);
      assertEquals(1, run.exitCode(), run::transcript);
      assertTrue(run.out().contains("operator: div_1 (aten.div.Tensor)"), run::transcript);
    }
  }

  @Tag("realworld")
  @TestFactory
  Stream<DynamicTest> realWorldCasesGiveTheSameOutput() {
    return RealWorldCase.importedTests(tmp, (name, in) -> same(name, in.gs(), in.gd(), in.ri()));
  }

  private void same(String name, Path gs, Path gd, Path ri) throws IOException {
    SameOutput compare = new SameOutput(tmp);
    for (int i = 0; i < ALIKE.size(); i++) {
      compare.compare(name + "-" + i, gs, gd, ri, ALIKE.get(i)[0], ALIKE.get(i)[1]);
    }
  }
}
