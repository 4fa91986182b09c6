package dev.entangle.refine;

import java.util.List;

/**
 * What a check found.
 *
 * @param verdict the verdict
 * @param outputRelation for each required G_s output with an expression over G_d outputs, that
 *     expression in the relation syntax (the certificate when the verdict is refines)
 * @param notChecked required G_s outputs without a defined value (dropout masks, uninitialized
 *     buffers), which no relation can cover and which are therefore not checked
 * @param failure for a verdict other than refines, where and why; else null
 * @param stats sizes and time
 */
public record CheckResult(
    Verdict verdict, List<OutputEntry> outputRelation, List<String> notChecked, Failure failure, Stats stats) {

  /** One pair of the output relation. */
  public record OutputEntry(String gs, String gd) {}

  /**
   * Where the check stopped.
   *
   * @param operator the G_s node name
   * @param target its ATen target
   * @param stackTrace its source location, when known
   * @param reason one paragraph saying what could not be shown
   * @param inputs for each input of the operator, the G_d expressions it was related to
   * @param explored the G_d tensors brought in for the operator
   * @param expected for an expectation failure: the expected G_d expression
   */
  public record Failure(
      String operator,
      String target,
      String stackTrace,
      String reason,
      List<InputRelation> inputs,
      List<String> explored,
      String expected) {}

  /** An operator input and what it was related to; a constant is related to nothing. */
  public record InputRelation(String name, List<String> gd, boolean constant) {}

  /**
   * @param gsOperators G_s operators processed
   * @param gdOperators G_d operators (all ranks)
   * @param seconds wall time of the check
   * @param lemmaApplications how often each lemma fired, by name (only lemmas that fired)
   */
  public record Stats(int gsOperators, int gdOperators, double seconds, java.util.Map<String, Integer> lemmaApplications) {}
}
