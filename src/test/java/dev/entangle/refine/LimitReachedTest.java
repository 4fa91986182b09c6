package dev.entangle.refine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.entangle.check.CheckInputs;
import dev.entangle.check.CheckPipeline;
import dev.entangle.check.CheckSettings;
import dev.entangle.cli.CliRun;
import dev.entangle.egraph.StopReason;
import dev.entangle.rules.LemmaLibrary;
import dev.entangle.rules.Lemmas;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A check that reaches a limit before a proof is inconclusive, and its failure names the limit
 * reached first with its bound: the e-graph's node limit, the time limit, or the exploration limit.
 */
class LimitReachedTest {
  private static final Lemmas LEMMAS =
      LemmaLibrary.load(List.of(CliRun.PROJECT_ROOT.resolve("lemmas")));

  private static CheckResult check(String example, CheckOptions options) {
    Path d = CliRun.PROJECT_ROOT.resolve("examples").resolve(example);
    CheckInputs in =
        CheckInputs.read(d.resolve("gs.json"), d.resolve("gd.json"), d.resolve("ri.json"));
    CheckSettings settings =
        new CheckSettings(options, false, 1, CheckSettings.DRAWS, 4_000_000_000L);
    return CheckPipeline.run(in, LEMMAS, settings).result();
  }

  private static StopReason limitReached(CheckResult r) {
    assertEquals(Verdict.INCONCLUSIVE, r.verdict());
    return assertInstanceOf(Failure.NoCleanExpression.class, r.failure()).limit();
  }

  @Test
  void theNodeLimitIsReportedWithItsBound() {
    CheckResult r = check("gpt-tp4-l2", CheckOptions.defaults().withNodeLimit(60));
    assertEquals(new StopReason.NodeLimit(60), limitReached(r));
  }

  @Test
  void aCheckOutOfTimeReportsTheTimeLimit() {
    CheckResult r = check("mlp-tp2", CheckOptions.defaults().withTimeout(Duration.ofNanos(1)));
    assertEquals(StopReason.TIME_LIMIT, limitReached(r));
  }

  @Test
  void theExplorationLimitIsReportedWithItsBound() {
    CheckOptions d = CheckOptions.defaults();
    CheckOptions one =
        new CheckOptions(
            d.timeout(),
            d.nodeLimit(),
            d.iterationLimit(),
            1,
            d.alternatives(),
            1,
            d.replay(),
            d.hotUsers(),
            d.chainsGoOn());
    CheckResult r = check("gpt-tp4-l2", one);
    assertEquals(new StopReason.ExplorationLimit(1), limitReached(r));
  }

  @Test
  void aProofWithinTheLimitsNamesNone() {
    CheckResult r = check("bug-mlp-missing-allreduce", CheckOptions.defaults());
    assertEquals(Verdict.NOT_REFINED, r.verdict());
    assertNull(assertInstanceOf(Failure.NoCleanExpression.class, r.failure()).limit());
  }
}
