package dev.entangle.egraph;

import java.util.Set;

/**
 * The plain applier: instantiates a right-side pattern under the match's bindings and merges it
 * with the matched class. The {@linkplain #existingOnly constrained} variant adds nothing and only
 * merges when the whole instance already exists.
 */
public final class PatternApplier implements Applier {
  private final Pattern rhs;
  private final boolean existingOnly;

  /**
   * @throws IllegalArgumentException when {@code rhs} has a wildcard attribute
   */
  public PatternApplier(Pattern rhs) {
    this(rhs, false);
  }

  private PatternApplier(Pattern rhs, boolean existingOnly) {
    if (rhs.hasWildcard()) {
      throw new IllegalArgumentException(
          "a right side cannot contain the wildcard attribute _: " + rhs);
    }
    this.rhs = rhs;
    this.existingOnly = existingOnly;
  }

  /**
   * An applier that merges the matched class with the instance of {@code rhs} only if it exists.
   */
  public static PatternApplier existingOnly(Pattern rhs) {
    return new PatternApplier(rhs, true);
  }

  public Pattern rhs() {
    return rhs;
  }

  public boolean isExistingOnly() {
    return existingOnly;
  }

  @Override
  public void apply(EGraph<?> g, Match m, Unions unions) {
    int id =
        existingOnly
            ? Instantiator.lookupInstance(g, rhs, m.subst())
            : Instantiator.instantiate(g, rhs, m.subst());
    if (id >= 0) {
      unions.union(m.classId(), id);
    }
  }

  @Override
  public Set<String> classVars() {
    return rhs.classVars();
  }

  @Override
  public Set<String> attrVars() {
    return rhs.attrVars();
  }

  @Override
  public String toString() {
    return (existingOnly ? "existing " : "") + rhs;
  }
}
