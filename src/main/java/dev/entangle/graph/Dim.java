package dev.entangle.graph;

/** One size of a tensor shape: a fixed integer or a symbolic size such as {@code s0}. */
public sealed interface Dim permits Dim.Fixed, Dim.Sym {

  /** A known size. */
  record Fixed(long size) implements Dim {
    @Override
    public String toString() {
      return Long.toString(size);
    }
  }

  /**
   * A symbolic size, kept as the expression text torch printed, e.g. {@code s0} or {@code s0 + 1}.
   */
  record Sym(String expr) implements Dim {
    @Override
    public String toString() {
      return expr;
    }
  }

  static Dim of(long size) {
    return new Fixed(size);
  }
}
