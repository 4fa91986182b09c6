package dev.entangle.refine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.entangle.check.CheckInputs;
import dev.entangle.check.CheckOutcome;
import dev.entangle.check.CheckPipeline;
import dev.entangle.check.CheckSettings;
import dev.entangle.cli.CliRun;
import dev.entangle.lower.TermText;
import dev.entangle.rules.LemmaLibrary;
import dev.entangle.rules.Lemmas;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A failure chain that never maps, whose root is a value G_d never computes (the log-softmax of the
 * whole logits under a vocabulary-parallel cross-entropy), is a gap in the lemmas when the chain's
 * outputs equal G_d's outputs as G_d lays them out on numbers: {@code unproved} at the root, those
 * outputs taken on numbers. When an output differs, or agrees only once re-laid out, the failure
 * stays {@code not-refined} at the root.
 */
class ChainOutputsOnNumbersTest {
  private static final Lemmas LEMMAS =
      LemmaLibrary.load(List.of(CliRun.PROJECT_ROOT.resolve("lemmas")));

  private static CheckOutcome check(String example) {
    Path d = CliRun.PROJECT_ROOT.resolve("examples").resolve(example);
    CheckInputs in =
        CheckInputs.read(d.resolve("gs.json"), d.resolve("gd.json"), d.resolve("ri.json"));
    CheckSettings settings =
        new CheckSettings(CheckOptions.defaults(), true, 1, CheckSettings.DRAWS, 4_000_000_000L);
    return CheckPipeline.run(in, LEMMAS, settings);
  }

  private static String operator(CheckOutcome o) {
    return o.programs().gs().op(o.result().failure().operator()).name();
  }

  @Test
  void aCrossEntropyWhoseLogSoftmaxNoRankComputesIsAGapInTheLemmas() {
    CheckOutcome o = check("vocab-parallel-cross-entropy-unstated-tp2");
    assertEquals(Verdict.UNPROVED, o.result().verdict());
    assertEquals("_log_softmax", operator(o));
    assertInstanceOf(Failure.ProvedOnNumbers.class, o.result().failure());
    TermText text = new TermText(o.programs().gd());
    Map<String, String> taken = new LinkedHashMap<>();
    for (Assumption a : o.result().assumptions()) {
      assertEquals("_log_softmax", o.programs().gs().op(a.operator()).name());
      taken.put(o.programs().gs().value(a.output()).name(), text.relation(a.candidate().term()));
    }
    // the gradients as the ranks' rows of the weight and bias; the loss is proved (the pick of
    // the log-softmax as the max-shifted pick minus the log of the shifted exponentials' sum)
    assertEquals(
        Map.of(
            "t_3", "concat(r0.mm, r1.mm, dim=0)",
            "view", "concat(r0.sum_2, r1.sum_2, dim=0)"),
        taken,
        "the outputs taken on numbers");
    Map<String, String> proved = new LinkedHashMap<>();
    for (CheckResult.OutputEntry e : o.result().outputRelation()) {
      proved.put(o.programs().gs().value(e.gs()).name(), text.relation(e.gd()));
    }
    assertEquals("r0.mean", proved.get("detach_8"), "the loss, proved");
  }

  @Test
  void aChainWhoseOutputsDifferStaysABugAtItsRoot() {
    CheckOutcome o = check("bug-vocab-parallel-cross-entropy-unmasked-grad");
    assertEquals(Verdict.NOT_REFINED, o.result().verdict());
    assertEquals("_log_softmax", operator(o));
    assertEquals(List.of(), o.result().assumptions());
    assertInstanceOf(Evidence.Witness.class, o.result().failure().evidence());
  }

  @Test
  void outputsThatAgreeOnlyOnceReLaidOutStayABug() {
    // the gathered sequence blocks land in the batch dim: a transpose and reshape of G_d's outputs
    // holds G_s's numbers, but the layout is the bug
    CheckOutcome o = check("bug-sp-rmsnorm-gather-batch-first");
    assertEquals(Verdict.NOT_REFINED, o.result().verdict());
    assertEquals("addmm", operator(o));
    assertEquals(List.of(), o.result().assumptions());
  }
}
