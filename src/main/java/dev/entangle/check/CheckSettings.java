package dev.entangle.check;

import dev.entangle.refine.CheckOptions;

/**
 * How a check runs, besides its inputs and lemmas.
 *
 * @param options the checker's limits
 * @param numbers whether to evaluate on numbers where a proof fails
 * @param seed the seed of the first random draw
 * @param draws independent random draws a numeric candidate must hold on
 * @param numericBudget most operations of one evaluation on numbers
 */
public record CheckSettings(
    CheckOptions options, boolean numbers, long seed, int draws, long numericBudget) {

  /** The longest time limit accepted, in seconds (about 31 years): larger ones overflow a clock. */
  public static final double MAX_TIMEOUT_SECONDS = 1e9;

  /** Independent random draws a numeric candidate must hold on, unless told otherwise. */
  public static final int DRAWS = 3;

  /** The command line's defaults: 600 s, numbers on, seed 1, three draws, 4 GFLOP. */
  public static CheckSettings defaults() {
    return new CheckSettings(CheckOptions.defaults(), true, 1, DRAWS, 4_000_000_000L);
  }
}
