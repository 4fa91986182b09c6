package dev.entangle.refine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.check.CheckInputs;
import dev.entangle.check.CheckPipeline;
import dev.entangle.check.CheckSettings;
import dev.entangle.cli.CliRun;
import dev.entangle.cli.RealWorldCase;
import dev.entangle.core.CoreOp;
import dev.entangle.egraph.RunReport;
import dev.entangle.rules.LemmaLibrary;
import dev.entangle.rules.Lemmas;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * A deferred chain's next operation is checked in the e-graph of the chain's last one ({@link
 * OperatorCheck#continueWith}): every example keeps the verdict, the operator it fails at, the
 * steps taken on numbers and the output relation it gets from fresh e-graphs, with one thread and
 * with checks ahead; so do the real-world cases.
 */
class ChainsGoOnTest {
  private static final Lemmas LEMMAS =
      LemmaLibrary.load(List.of(CliRun.PROJECT_ROOT.resolve("lemmas")));

  @TempDir Path tmp;

  private static CheckResult check(Path gs, Path gd, Path ri, boolean chainsGoOn, int jobs) {
    CheckInputs in = CheckInputs.read(gs, gd, ri);
    CheckOptions options = CheckOptions.defaults().withChainsGoingOn(chainsGoOn).withJobs(jobs);
    CheckSettings settings =
        new CheckSettings(options, true, 1, CheckSettings.DRAWS, 4_000_000_000L);
    return CheckPipeline.run(in, LEMMAS, settings).result();
  }

  @TestFactory
  Stream<DynamicTest> everyExampleKeepsItsOutcome() throws IOException {
    List<Path> dirs;
    try (Stream<Path> s = Files.list(CliRun.PROJECT_ROOT.resolve("examples"))) {
      dirs = s.filter(d -> Files.isRegularFile(d.resolve("gs.json"))).sorted().toList();
    }
    assertTrue(dirs.size() > 50, "the examples folder lost its cases");
    return dirs.stream()
        .map(
            d ->
                DynamicTest.dynamicTest(
                    d.getFileName().toString(),
                    () ->
                        same(
                            d.getFileName().toString(),
                            d.resolve("gs.json"),
                            d.resolve("gd.json"),
                            d.resolve("ri.json"))));
  }

  @Tag("realworld")
  @TestFactory
  Stream<DynamicTest> theRealWorldCasesKeepTheirOutcomes() {
    return RealWorldCase.importedTests(tmp, (name, in) -> same(name, in.gs(), in.gd(), in.ri()));
  }

  private static void same(String name, Path gs, Path gd, Path ri) {
    CheckResult fresh = check(gs, gd, ri, false, 1);
    for (int jobs : new int[] {1, 2}) {
      CheckResult goOn = check(gs, gd, ri, true, jobs);
      String what = name + " with --jobs " + jobs;
      assertEquals(fresh.verdict(), goOn.verdict(), what);
      assertEquals(operator(fresh), operator(goOn), what);
      assertEquals(fresh.assumptions(), goOn.assumptions(), what);
      assertEquals(fresh.outputRelation(), goOn.outputRelation(), what);
    }
  }

  private static int operator(CheckResult r) {
    return r.failure() == null ? -2 : r.failure().operator();
  }

  /**
   * The option is not a no-op: in a bug twin whose failure chain runs to the model's end, the
   * chain's operators search only what each adds, in fewer lemma iterations than fresh e-graphs.
   */
  @Test
  void aFailureChainGoingOnSearchesLessThanFreshEGraphs() {
    Path d = CliRun.PROJECT_ROOT.resolve("examples").resolve("bug-gqa-tiled-kv");
    long fresh = iterations(d, false);
    long goingOn = iterations(d, true);
    assertTrue(
        goingOn < fresh, "lemma iterations going on " + goingOn + ", with fresh e-graphs " + fresh);
  }

  private static long iterations(Path d, boolean chainsGoOn) {
    CheckInputs in =
        CheckInputs.read(d.resolve("gs.json"), d.resolve("gd.json"), d.resolve("ri.json"));
    CheckOptions options = CheckOptions.defaults().withChainsGoingOn(chainsGoOn);
    CheckSettings settings =
        new CheckSettings(options, false, 1, CheckSettings.DRAWS, 4_000_000_000L);
    long[] total = {0};
    CheckListener count =
        new CheckListener() {
          @Override
          public void saturated(CoreOp op, RunReport report, int nodes, int classes, int explored) {
            total[0] += report.iterations();
          }
        };
    CheckResult r =
        CheckPipeline.check(
            in, CheckPipeline.lower(in), LEMMAS, settings, count, System.nanoTime());
    assertEquals(Verdict.NOT_REFINED, r.verdict());
    return total[0];
  }
}
