package dev.entangle.eval;

/** A computed G_d tensor: rank {@code rank}'s node {@code name}. */
public record GdValue(int rank, String name, Tensor value) {
  /** {@code rK.NAME}. */
  public String label() {
    return "r" + rank + "." + name;
  }
}
