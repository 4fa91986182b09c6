package dev.entangle.draft;

import java.util.Locale;

/** How sure a drafted entry is. */
public enum Confidence {
  /** The names (or tags) are the model's own and the shapes allow this reading only. */
  HIGH,
  /**
   * The shapes allow this reading only, but the names match by position alone (generated names such
   * as {@code primals_4} or {@code p9.10}), or the uses slice it at more places than the reading
   * needs.
   */
  MEDIUM,
  /** A guess the user must check: the shapes allow it, the uses do not say why. */
  LOW;

  /** Its name in files and on screen. */
  public String text() {
    return name().toLowerCase(Locale.ROOT);
  }
}
