package dev.entangle.importer.hlo;

import dev.entangle.core.Dtype;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/** The type of an HLO value: an array of one element type ({@code f16[2048,64]}) or a tuple. */
public sealed interface HloType {

  /**
   * An array, or a scalar when {@code dims} is empty; {@code token[]} is an array of element type
   * {@code token}.
   *
   * @param elementType the HLO element type as printed: {@code pred}, {@code s32}, {@code f16}, ...
   * @param dims the sizes, major to minor as printed (the layout is not kept)
   */
  record Array(String elementType, long[] dims) implements HloType {
    public Array {
      dims = dims.clone();
    }

    @Override
    public long[] dims() {
      return dims.clone();
    }

    public int rank() {
      return dims.length;
    }

    public long numel() {
      long n = 1;
      for (long d : dims) {
        n *= d;
      }
      return n;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Array a
          && a.elementType.equals(elementType)
          && Arrays.equals(a.dims, dims);
    }

    @Override
    public int hashCode() {
      return elementType.hashCode() * 31 + Arrays.hashCode(dims);
    }

    @Override
    public String toString() {
      return elementType
          + Arrays.stream(dims).mapToObj(Long::toString).collect(Collectors.joining(",", "[", "]"));
    }
  }

  /** A tuple of values. */
  record Tuple(List<HloType> items) implements HloType {
    public Tuple {
      items = List.copyOf(items);
    }

    @Override
    public String toString() {
      return items.stream().map(Object::toString).collect(Collectors.joining(", ", "(", ")"));
    }
  }

  /** The graph file's dtype name of an HLO element type, or null for one the graph format lacks. */
  static String dtype(String elementType) {
    Dtype d = Dtype.byXlaName(elementType);
    return d == null ? null : d.canonical();
  }
}
