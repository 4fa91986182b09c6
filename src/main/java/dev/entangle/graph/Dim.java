package dev.entangle.graph;

/** One size of a tensor shape: a fixed integer or a symbolic size such as {@code s0}. */
public sealed interface Dim permits Dim.Fixed, Dim.Sym {

  /**
   * A known size. Its {@code equals} and {@code hashCode} are written out: a record's generated
   * ones set up method handles on first use, about 20 ms of a small check, which compares sizes
   * early.
   */
  record Fixed(long size) implements Dim {
    @Override
    public boolean equals(Object o) {
      return o instanceof Fixed f && f.size == size;
    }

    @Override
    public int hashCode() {
      return Long.hashCode(size);
    }

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
