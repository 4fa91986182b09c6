package dev.entangle.lower;

/** A node whose arguments the normalizer cannot read (wrong kinds, missing arguments). */
public final class LoweringException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public LoweringException(String message) {
    super(message);
  }
}
