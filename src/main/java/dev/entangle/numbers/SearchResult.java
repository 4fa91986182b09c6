package dev.entangle.numbers;

import dev.entangle.eval.Difference;
import dev.entangle.relation.Expr;

/** What {@link CleanSearch} found for one target. */
public sealed interface SearchResult {
  /** A clean expression of G_d tensors equal to the target within tolerance. */
  record Found(Expr expr, Difference difference) implements SearchResult {}

  /**
   * No candidate equals the target.
   *
   * @param closest the candidate with the smallest relative error, or null when no G_d tensor or
   *     combination has the target's element count and dtype
   * @param difference how the closest candidate differs, or null with it
   * @param candidates how many candidates were compared
   * @param stoppedBecause why the search stopped early (its work limit), or null when it tried all
   */
  record NotFound(Expr closest, Difference difference, int candidates, String stoppedBecause)
      implements SearchResult {}
}
