package dev.entangle.importer;

import java.util.List;

/**
 * The printed {@code forward} function of one graph, as statements still to be interpreted.
 *
 * @param params the parameters after {@code self}
 * @param body the statements that define nodes, in order (clean-ups and comments removed)
 */
record GraphCode(List<Param> params, List<Statement> body) {
  GraphCode {
    params = List.copyOf(params);
    body = List.copyOf(body);
  }

  /** A {@code forward} parameter; {@code annotation} is null when it has none. */
  record Param(String name, String annotation, int line) {}
}
