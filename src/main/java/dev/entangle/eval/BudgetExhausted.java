package dev.entangle.eval;

import dev.entangle.core.numeric.EvalException;

/**
 * The work or memory budget of an evaluation does not cover the next step; the message says which.
 */
public final class BudgetExhausted extends EvalException {
  private static final long serialVersionUID = 1L;

  public BudgetExhausted(String message) {
    super(message);
  }
}
