package dev.entangle.graph;

import java.util.List;

/**
 * An argument of a node, encoded in graph files as described in docs/formats.md, Argument encoding.
 */
public sealed interface Arg {

  /** The value of another node: {@code {"node": NAME}}. */
  record NodeRef(String name) implements Arg {}

  /** A JSON number written without fraction or exponent (64-bit). */
  record IntArg(long value) implements Arg {}

  /** A JSON number with fraction or exponent, or {@code {"float": "inf"|"-inf"|"nan"}}. */
  record FloatArg(double value) implements Arg {}

  record StrArg(String value) implements Arg {}

  record BoolArg(boolean value) implements Arg {}

  /** JSON null (Python None). */
  record NoneArg() implements Arg {}

  /** A JSON list (Python list or tuple). */
  record ListArg(List<Arg> items) implements Arg {
    public ListArg {
      items = List.copyOf(items);
    }
  }

  /** {@code {"dtype": "float32"}}. */
  record DtypeArg(String dtype) implements Arg {}

  /** {@code {"device": "cuda:0"}}. */
  record DeviceArg(String device) implements Arg {}

  /** {@code {"layout": "strided"}}. */
  record LayoutArg(String layout) implements Arg {}

  /** {@code {"memory_format": "contiguous_format"}}. */
  record MemoryFormatArg(String format) implements Arg {}

  /** {@code {"sym": "s0 + 1"}}: a symbolic integer. */
  record SymArg(String expr) implements Arg {}

  NoneArg NONE = new NoneArg();
}
