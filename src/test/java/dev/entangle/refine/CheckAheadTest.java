package dev.entangle.refine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.cli.CliRun;
import dev.entangle.cli.RealWorldCase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checking operators ahead of their turn ({@code --jobs}) changes nothing a user sees: the verdict,
 * the output relation, the failure, the verbose trace and the JSON report are those of a check on
 * one thread, on the examples large enough to check ahead and on the real-world cases (a proof and
 * a bug).
 */
class CheckAheadTest {
  @TempDir Path tmp;

  @Test
  void examplesLargeEnoughToCheckAheadGiveTheSameOutput() throws IOException {
    for (String name : new String[] {"gpt-tp4-l2", "gpt-tp6-l1"}) {
      Path d = CliRun.PROJECT_ROOT.resolve("examples").resolve(name);
      same(name, d.resolve("gs.json"), d.resolve("gd.json"), d.resolve("ri.json"));
    }
  }

  /** A bug in the second layer (one rank scales its attention scores twice as much). */
  @Test
  void aBugFoundAfterOperatorsCheckedAheadGivesTheSameFailure() throws IOException {
    Path d = CliRun.PROJECT_ROOT.resolve("examples").resolve("gpt-tp4-l2");
    String gd = Files.readString(d.resolve("gd.json"));
    String scale = "{\"node\": \"bmm_2\"}, 1.4142135623730951";
    assertTrue(gd.contains(scale), "the example's second layer no longer divides bmm_2 so");
    Path broken =
        Files.writeString(
            tmp.resolve("broken-gd.json"),
            gd.replaceFirst(Pattern.quote(scale), "{\"node\": \"bmm_2\"}, 2.8284271247461903"));
    same("broken", d.resolve("gs.json"), broken, d.resolve("ri.json"));
    CliRun run = CliRun.check(d.resolve("gs.json"), broken, d.resolve("ri.json"), "--jobs", 3);
    assertEquals(1, run.exitCode(), run::transcript);
    assertTrue(run.out().contains("operator: div_1 (aten.div.Tensor)"), run::transcript);
  }

  @Tag("realworld")
  @TestFactory
  Stream<DynamicTest> realWorldCasesGiveTheSameOutput() {
    return RealWorldCase.tests(
        c ->
            Stream.of(
                DynamicTest.dynamicTest(
                    c.name(),
                    () -> {
                      RealWorldCase.Imported in =
                          c.importInto(Files.createTempDirectory(tmp, c.name()));
                      same(c.name(), in.gs(), in.gd(), in.ri());
                    })));
  }

  private void same(String name, Path gs, Path gd, Path ri) throws IOException {
    new SameOutput(tmp)
        .compare(name, gs, gd, ri, new Object[] {"--jobs", 1}, new Object[] {"--jobs", 3});
  }
}
