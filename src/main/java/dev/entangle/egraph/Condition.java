package dev.entangle.egraph;

/** A guard on a {@link Rewrite}: the applier runs on a match only when the condition holds. */
@FunctionalInterface
public interface Condition {
  /**
   * Whether the rewrite may apply to {@code m}; must not modify the e-graph. Like an {@link
   * Applier}, it may see unions made earlier in the same iteration that are not yet rebuilt.
   */
  boolean test(EGraph<?> g, Match m);

  /** The condition that always holds. */
  static Condition always() {
    return (g, m) -> true;
  }
}
