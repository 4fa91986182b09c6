package dev.entangle.core;

import java.util.List;
import java.util.Map;

/**
 * A relation file resolved against the core programs: names are value ids, expressions are clean
 * {@link CoreTerm}s with every dim, slice bound and reshape size normalized.
 *
 * @param inputs for each related G_s value, the G_d terms it equals, in file order
 * @param equalities groups of G_d terms known to be equal
 * @param outputs the G_s values the output relation must cover, or null for the default
 * @param expects the expectations to prove, in file order
 * @param ranges the ranges the relation states, by the G_d value whose elements lie in them (the
 *     tensors of an {@code "in_range"} entry's expression)
 */
public record CoreRelation(
    Map<Integer, List<CoreTerm>> inputs,
    List<List<CoreTerm>> equalities,
    List<Integer> outputs,
    List<Expect> expects,
    Map<Integer, IdRange> ranges) {

  /**
   * An expectation: G_s value {@code gs} must be proved equal to {@code gd}.
   *
   * @param text the expression as the file writes it, for reports
   */
  public record Expect(int gs, CoreTerm gd, String text) {
    // equals and hashCode are written out: a record's own are made at their first call by an
    // invokedynamic bootstrap, which costs a small check about a tenth of its checking time

    @Override
    public boolean equals(Object o) {
      return o instanceof Expect e && e.gs == gs && e.gd.equals(gd) && e.text.equals(text);
    }

    @Override
    public int hashCode() {
      return (gs * 31 + gd.hashCode()) * 31 + text.hashCode();
    }
  }
}
