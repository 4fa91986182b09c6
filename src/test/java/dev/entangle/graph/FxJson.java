package dev.entangle.graph;

import java.util.Collections;
import java.util.List;

/** Graph files written by hand in tests, in the contract's JSON ({@code entangle-fx/1}). */
public final class FxJson {
  private FxJson() {}

  /** A placeholder of the given shape (e.g. {@code "[8, 4]"}) and dtype. */
  public static String input(String name, String shape, String dtype) {
    return "{\"name\": \""
        + name
        + "\", \"op\": \"placeholder\", \"target\": \""
        + name
        + "\", \"meta\": "
        + meta(shape, dtype)
        + "}";
  }

  /** A call of one result; {@code args} is a JSON list, {@code kwargs} a JSON object. */
  public static String call(
      String name, String target, String args, String kwargs, String shape, String dtype) {
    return node(name, target, args, kwargs, meta(shape, dtype));
  }

  /** A call returning {@code count} items of one shape and dtype. */
  public static String tuple(
      String name,
      String target,
      String args,
      String kwargs,
      String shape,
      String dtype,
      int count) {
    return tuple(name, target, args, kwargs, Collections.nCopies(count, meta(shape, dtype)));
  }

  /** A call returning one item per entry of {@code items}, each a {@link #meta}. */
  public static String tuple(
      String name, String target, String args, String kwargs, List<String> items) {
    return node(name, target, args, kwargs, "{\"tuple\": [" + String.join(", ", items) + "]}");
  }

  /** Item {@code i} of a tuple node. */
  public static String item(String name, String of, int i, String shape, String dtype) {
    return call(name, "getitem", "[" + ref(of) + ", " + i + "]", "{}", shape, dtype);
  }

  /** A node reference argument. */
  public static String ref(String name) {
    return "{\"node\": \"" + name + "\"}";
  }

  /** A graph file of the nodes, returning the named nodes. */
  public static String graph(List<String> nodes, String... outputs) {
    StringBuilder out = new StringBuilder();
    for (String o : outputs) {
      out.append(out.length() == 0 ? "" : ", ").append(ref(o));
    }
    return "{\"format\": \"entangle-fx/1\", \"nodes\": ["
        + String.join(", ", nodes)
        + ", {\"name\": \"output\", \"op\": \"output\", \"target\": \"output\", \"args\": [["
        + out
        + "]]}]}";
  }

  /** A tensor's meta: its shape and dtype. */
  public static String meta(String shape, String dtype) {
    return "{\"shape\": " + shape + ", \"dtype\": \"" + dtype + "\"}";
  }

  private static String node(String name, String target, String args, String kwargs, String meta) {
    return "{\"name\": \""
        + name
        + "\", \"op\": \"call_function\", \"target\": \""
        + target
        + "\", \"args\": "
        + args
        + ", \"kwargs\": "
        + kwargs
        + ", \"meta\": "
        + meta
        + "}";
  }
}
