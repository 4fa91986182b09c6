package dev.entangle.core.numeric;

/**
 * A value that cannot be computed: an operator without numeric semantics here, an index outside its
 * table, an input that was not given. The message says which and why, in one sentence.
 */
public class EvalException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public EvalException(String message) {
    super(message);
  }
}
