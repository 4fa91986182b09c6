package dev.entangle.refine;

import dev.entangle.core.CoreTerm;

/**
 * What the numbers say about a G_s value that no proof reached: G_s and every rank of G_d are
 * evaluated on random inputs that satisfy the input relation, and the value is compared with clean
 * expressions of G_d's values.
 */
public sealed interface Evidence {
  /**
   * A clean expression of G_d values equal to the G_s value on every draw: a proof gap, not (on
   * this evidence) a bug.
   *
   * @param gsValue the G_s value
   * @param term the clean expression over G_d values
   * @param draws on how many independent random inputs it held
   * @param seed the seed of the first draw
   */
  record Candidate(int gsValue, CoreTerm term, int draws, long seed) implements Evidence {}

  /**
   * No clean expression of G_d values equals the G_s value: a bug, with the numbers that show it.
   *
   * @param gsValue the G_s value
   * @param seed the seed of the draw that shows it
   * @param shape the G_s value's shape
   * @param closest the closest clean expression tried, or null when none had its size
   * @param index where the closest first differs (null when none)
   * @param gs the G_s element there
   * @param gd the closest's element there
   * @param maxAbs the largest absolute difference
   * @param maxRelative the largest relative difference
   * @param differing how many elements differ beyond tolerance
   * @param note more on how the search went (it stopped early, say), or null
   * @param tried how many clean forms were compared with the value (1 when one given expression
   *     was)
   */
  record Witness(
      int gsValue,
      long seed,
      long[] shape,
      CoreTerm closest,
      long[] index,
      double gs,
      double gd,
      double maxAbs,
      double maxRelative,
      long differing,
      String note,
      int tried)
      implements Evidence {}

  /**
   * The numbers could not say (too large to evaluate, an operator without numbers, ...).
   *
   * @param reason why, in one sentence
   * @param gdOperator when G_d values the search needed were not computed, the operator without
   *     numbers they go through (null otherwise): none of the values computed equals the G_s value,
   *     but one not computed may
   * @param gdValue the first such G_d value, or null
   */
  record NotRun(String reason, String gdOperator, String gdValue) implements Evidence {
    public NotRun(String reason) {
      this(reason, null, null);
    }
  }
}
