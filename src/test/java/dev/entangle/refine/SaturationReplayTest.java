package dev.entangle.refine;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.rules.LemmaLibrary;
import dev.entangle.rules.Lemmas;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * When saturations may be replayed ({@code egraph.SaturationMemoTest} shows a replay is exact, and
 * {@link SameOutcomeOptionsTest} that a check with replays prints what one without does): unless
 * {@code --no-replay} asks otherwise, or a lemma names G_d tensors or undefined values and so could
 * tell two alike e-graphs apart.
 */
class SaturationReplayTest {
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
}
