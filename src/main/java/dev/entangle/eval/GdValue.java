package dev.entangle.eval;

import dev.entangle.core.numeric.Tensor;

/** A computed G_d tensor: rank {@code rank}'s node {@code name}. */
public record GdValue(int rank, String name, Tensor value) {
  /** {@code rK.NAME}. */
  public String label() {
    return "r" + rank + "." + name;
  }
}
