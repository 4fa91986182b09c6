package dev.entangle.refine;

import dev.entangle.core.CoreTerm;
import java.util.List;
import java.util.Map;

/**
 * What a check found.
 *
 * @param verdict the verdict
 * @param outputRelation for each required G_s output with a term over G_d outputs, that term (the
 *     certificate when the verdict is refines)
 * @param notChecked required G_s outputs without a defined value (dropout masks, uninitialized
 *     buffers), which no relation can cover and which are therefore not checked
 * @param failure for a verdict other than refines, where and why; else null
 * @param assumptions the steps taken on numbers alone, in order (none for refines)
 * @param stats sizes and time
 */
public record CheckResult(
    Verdict verdict,
    List<OutputEntry> outputRelation,
    List<Integer> notChecked,
    Failure failure,
    List<Assumption> assumptions,
    Stats stats) {

  /** One pair of the output relation: a G_s value and the clean G_d term it equals. */
  public record OutputEntry(int gs, CoreTerm gd) {}

  /**
   * @param gsOperators G_s operations processed
   * @param gdOperators G_d operators (all ranks)
   * @param seconds wall time of the check
   * @param lemmaApplications how often each lemma fired, by name (only lemmas that fired)
   */
  public record Stats(
      int gsOperators, int gdOperators, double seconds, Map<String, Integer> lemmaApplications) {}
}
