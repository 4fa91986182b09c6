package dev.entangle.core;

/** An operator applied to operands whose shapes it does not accept. */
public final class ShapeException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ShapeException(String message) {
    super(message);
  }
}
