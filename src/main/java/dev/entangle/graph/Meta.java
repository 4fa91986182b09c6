package dev.entangle.graph;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What a graph file records about a node's result.
 *
 * @param types for a single result a list of one type; for a tuple result ({@code meta.tuple}) one
 *     entry per item, null for a non-tensor item; empty when the file gives no type (e.g. output)
 * @param tuple whether the node returns a tuple (then it is consumed through {@code getitem})
 * @param stackTrace the user source that produced the node, or null
 * @param tag a second, human name for the value (e.g. a parameter's qualified name), or null
 * @param value for a 0-d {@code get_attr} constant, its number; otherwise null
 */
public record Meta(
    List<TensorType> types, boolean tuple, String stackTrace, String tag, Double value) {
  public Meta {
    types = types == null ? List.of() : Collections.unmodifiableList(new ArrayList<>(types));
  }

  public static Meta empty() {
    return new Meta(List.of(), false, null, null, null);
  }

  /** The single result type, or null when the node has none or returns a tuple. */
  public TensorType type() {
    return !tuple && types.size() == 1 ? types.get(0) : null;
  }
}
