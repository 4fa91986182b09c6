package dev.entangle.importer.hlo;

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
    return switch (elementType) {
      case "pred" -> "bool";
      case "s8" -> "int8";
      case "s16" -> "int16";
      case "s32" -> "int32";
      case "s64" -> "int64";
      case "u8" -> "uint8";
      case "u16" -> "uint16";
      case "u32" -> "uint32";
      case "u64" -> "uint64";
      case "f16" -> "float16";
      case "bf16" -> "bfloat16";
      case "f32" -> "float32";
      case "f64" -> "float64";
      case "c64" -> "complex64";
      case "c128" -> "complex128";
      case "f8e4m3fn" -> "float8_e4m3fn";
      case "f8e5m2" -> "float8_e5m2";
      default -> null;
    };
  }
}
