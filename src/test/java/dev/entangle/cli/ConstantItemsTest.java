package dev.entangle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * An item of a G_s tuple computed from constants alone (the total weight {@code nll_loss_forward}
 * returns beside the loss) is carried as its term: no check has to map it to G_d, with or without
 * numbers.
 */
class ConstantItemsTest {
  private static CliRun check(String example) {
    Path dir = Path.of("examples", example);
    return CliRun.check(
        dir.resolve("gs.json"), dir.resolve("gd.json"), dir.resolve("ri.json"), "--no-numbers");
  }

  @Test
  void aCorrectStepRefinesWithoutNumbers() {
    CliRun run = check("dp-cross-entropy-dp2");
    assertEquals(0, run.exitCode(), run::toString);
    assertEquals("refines", run.verdictLine());
  }

  @Test
  void aBugIsFoundWhereItShowsNotAtTheConstant() {
    CliRun run = check("bug-dp-cross-entropy-grads-sum");
    assertEquals(1, run.exitCode(), run::toString);
    // the weight gradient, half the ranks' sum G_d returns, which no clean expression over G_d's
    // outputs scales back; not nll_loss_forward's constant
    assertTrue(run.out().contains("operator: t_3 (aten.t.default)"), run.out());
  }
}
