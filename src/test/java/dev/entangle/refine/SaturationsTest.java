package dev.entangle.refine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.entangle.egraph.Rewrite;
import dev.entangle.rules.LemmaLibrary;
import dev.entangle.rules.Lemmas;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The two stages of an operator's saturations: the decision procedures that compute a form of every
 * class wait for the second, which runs every lemma; their counts land at their places among all
 * lemmas.
 */
class SaturationsTest {
  private static List<String> names(List<Rewrite<dev.entangle.core.TypeInfo>> rewrites) {
    return rewrites.stream().map(Rewrite::name).toList();
  }

  @Test
  void theFirstStageLeavesOutTheWholeGraphProcedures() {
    Lemmas lemmas =
        LemmaLibrary.parse(
            Map.of(
                "l.lemmas",
                "(rule p (neg (neg ?x)) ?x)\n(native linear-forms)\n(native block-maps)\n"
                    + "(native concat-of-sums)"));
    Saturations s = new Saturations(lemmas.rewrites(), 1000);
    List<String> all = lemmas.names();
    assertEquals(List.of("p", "concat-of-sums"), names(s.first.rewrites()));
    int[] firstAt = {all.indexOf("p"), all.indexOf("concat-of-sums")};
    assertArrayEquals(firstAt, s.first.lemmaIndex());
    assertNotNull(s.second);
    assertEquals(all, names(s.second.rewrites()));
  }

  @Test
  void withoutWholeGraphProceduresThereIsOneStage() {
    Lemmas lemmas = LemmaLibrary.parse(Map.of("l.lemmas", "(rule p (neg (neg ?x)) ?x)"));
    Saturations s = new Saturations(lemmas.rewrites(), 1000);
    assertEquals(List.of("p"), names(s.first.rewrites()));
    assertNull(s.second);
  }
}
