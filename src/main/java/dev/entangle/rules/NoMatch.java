package dev.entangle.rules;

/** Thrown by evaluation when a condition or computed attribute does not apply to a match. */
final class NoMatch extends RuntimeException {
  private static final long serialVersionUID = 1L;
  static final NoMatch INSTANCE = new NoMatch();

  private NoMatch() {
    super(null, null, false, false);
  }
}
