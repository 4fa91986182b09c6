package dev.entangle.egraph;

import java.util.Objects;

/**
 * A named rewrite (egg's design): where the searcher matches, the applier runs.
 *
 * @param name the name its statistics are reported under
 * @param searcher finds matches
 * @param applier applies one match
 * @param <D> the e-graph's analysis fact type
 */
public record Rewrite<D>(String name, Searcher<D> searcher, Applier<D> applier) {
  public Rewrite {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("a rewrite needs a name");
    }
    Objects.requireNonNull(searcher, "searcher");
    Objects.requireNonNull(applier, "applier");
  }
}
