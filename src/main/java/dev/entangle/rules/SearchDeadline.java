package dev.entangle.rules;

import dev.entangle.egraph.DeadlinePassed;

/**
 * A native lemma's deadline: {@link #poll} at each step of its search reads the clock at the first
 * step and every {@value #EVERY} steps after, and throws {@link DeadlinePassed} once past it.
 */
public final class SearchDeadline {
  /** How many steps pass between readings of the clock (a power of two). */
  static final int EVERY = 64;

  private final long nanos;
  private int steps;

  /**
   * @param nanos the {@link System#nanoTime} after which the search stops, or {@link
   *     Long#MAX_VALUE} for none
   */
  public SearchDeadline(long nanos) {
    this.nanos = nanos;
  }

  /**
   * Counts one step of the search.
   *
   * @throws DeadlinePassed when the clock, if read at this step, is past the deadline
   */
  public void poll() {
    if ((steps++ & (EVERY - 1)) == 0 && nanos != Long.MAX_VALUE && System.nanoTime() > nanos) {
      throw new DeadlinePassed();
    }
  }
}
