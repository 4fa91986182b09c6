package dev.entangle.graph;

import java.util.Locale;

/** The kind of a torch.fx node, as written in the graph file's {@code op} field. */
public enum NodeOp {
  PLACEHOLDER,
  GET_ATTR,
  CALL_FUNCTION,
  CALL_METHOD,
  CALL_MODULE,
  OUTPUT;

  /** The spelling used in graph files, e.g. {@code call_function}. */
  public String jsonName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses the graph file spelling; returns null for an unknown kind. */
  public static NodeOp fromJson(String s) {
    for (NodeOp op : values()) {
      if (op.jsonName().equals(s)) {
        return op;
      }
    }
    return null;
  }
}
