package dev.entangle.refine;

import dev.entangle.core.CoreTerm;
import java.util.Map;

/**
 * Numeric evidence for values no proof reached: the check asks it only when a proof fails, so a
 * check that refines costs nothing more. It can never turn a non-proof into {@code refines}.
 */
public interface Numbers {
  /**
   * Searches the G_d values numerically for a clean expression equal to G_s value {@code gsValue}
   * (only G_d's outputs and inputs when {@code overOutputs}).
   */
  Evidence search(int gsValue, boolean overOutputs);

  /** Compares G_s value {@code gsValue} with the G_d term {@code gd} on numbers. */
  Evidence compare(int gsValue, CoreTerm gd);

  /**
   * Whether the models could be evaluated on numbers at all (on, within the numeric budget, inputs
   * drawn): then a value the numbers could not say anything about is one no kernel computes.
   */
  default boolean evaluated() {
    return false;
  }

  /**
   * The G_s inputs of ids (an integer dtype, indexing something) that the relation states no range
   * for, by value name, each with the range their elements are drawn from: below what they index.
   */
  default Map<String, Failure.DrawnRange> unstatedRanges() {
    return Map.of();
  }

  /** The numbers switched off: every answer says so. */
  Numbers NONE =
      new Numbers() {
        @Override
        public Evidence search(int gsValue, boolean overOutputs) {
          return new Evidence.NotRun("numbers are off");
        }

        @Override
        public Evidence compare(int gsValue, CoreTerm gd) {
          return new Evidence.NotRun("numbers are off");
        }
      };
}
