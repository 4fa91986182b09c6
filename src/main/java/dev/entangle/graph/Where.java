package dev.entangle.graph;

import dev.entangle.util.InputException;

/**
 * Where a problem is, as the start of a user-facing message: the file, then the rank, node and
 * field, e.g. {@code gd.json rank 1: node "mm" (nodes[3])}.
 */
record Where(String text) {

  /** A place inside this one: {@code this: detail}. */
  Where in(String detail) {
    return new Where(text + ": " + detail);
  }

  /** The error to throw for a problem here; {@code problem} says what is wrong and what to do. */
  InputException error(String problem) {
    return new InputException(text + ": " + problem);
  }
}
