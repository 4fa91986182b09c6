package dev.entangle.egraph;

/**
 * Thrown out of a {@link Searcher} that ran past its deadline; the {@link Runner} stops the run.
 */
public final class DeadlinePassed extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public DeadlinePassed() {
    super("the search ran past its deadline", null, false, false);
  }
}
