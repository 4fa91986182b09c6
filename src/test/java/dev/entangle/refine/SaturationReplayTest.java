package dev.entangle.refine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.cli.CliRun;
import dev.entangle.cli.RealWorldCase;
import dev.entangle.rules.LemmaLibrary;
import dev.entangle.rules.Lemmas;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replaying the saturation of an operator whose e-graph was built alike (a later layer's) changes
 * nothing a user sees: a check with replays and one with {@code --no-replay} give the same verdict,
 * output relation, failure, verbose trace and JSON report; a bug in a later layer than a correct
 * one is still found there.
 */
class SaturationReplayTest {
  @TempDir Path tmp;

  @Test
  void examplesOfSeveralLayersAndRanksGiveTheSameOutput() throws IOException {
    for (String name : new String[] {"gpt-tp4-l2", "gpt-tp6-l1", "sp-layernorm-tp8", "mlp-tp8"}) {
      Path d = CliRun.PROJECT_ROOT.resolve("examples").resolve(name);
      same(name, d.resolve("gs.json"), d.resolve("gd.json"), d.resolve("ri.json"));
    }
  }

  /** The first layer is right and the second scales its attention scores twice as much. */
  @Test
  void aBugInTheSecondLayerIsFoundAfterTheFirstLayersSaturationsAreKept() throws IOException {
    Path d = CliRun.PROJECT_ROOT.resolve("examples").resolve("gpt-tp4-l2");
    String gd = Files.readString(d.resolve("gd.json"));
    String scale = "{\"node\": \"bmm_2\"}, 1.4142135623730951";
    assertTrue(gd.contains(scale), "the example's second layer no longer divides bmm_2 so");
    Path broken =
        Files.writeString(
            tmp.resolve("broken-gd.json"),
            gd.replaceFirst(Pattern.quote(scale), "{\"node\": \"bmm_2\"}, 2.8284271247461903"));
    same("broken", d.resolve("gs.json"), broken, d.resolve("ri.json"));
    CliRun run = CliRun.check(d.resolve("gs.json"), broken, d.resolve("ri.json"), "--jobs", 1);
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

  @Test
  void lemmasThatNameTensorsOrUndefinedValuesTurnReplaysOff() {
    CheckOptions on = CheckOptions.defaults();
    Lemmas plain = LemmaLibrary.parse(Map.of("p.lemmas", "(rule p (neg (neg ?x)) ?x)"));
    assertTrue(Context.replays(plain, on));
    assertFalse(Context.replays(plain, on.withReplay(false)));
    for (String rule :
        List.of(
            "(rule t (exp (tensor[?i])) (exp (neg (neg (tensor[?i])))))",
            "(rule u (exp ?x) (exp (add ?x (undef[0 0]))))")) {
      assertFalse(Context.replays(LemmaLibrary.parse(Map.of("n.lemmas", rule)), on), rule);
    }
  }

  private void same(String name, Path gs, Path gd, Path ri) throws IOException {
    new SameOutput(tmp)
        .compare(
            name,
            gs,
            gd,
            ri,
            new Object[] {"--jobs", 1},
            new Object[] {"--jobs", 1, "--no-replay"});
  }
}
