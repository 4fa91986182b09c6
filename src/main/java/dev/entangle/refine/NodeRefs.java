package dev.entangle.refine;

import dev.entangle.graph.Arg;
import dev.entangle.graph.Node;
import dev.entangle.ops.AtenNormalizer;
import java.util.function.Consumer;
import java.util.function.Predicate;

/** What a node reads, and the rule both graphs use to tell which values have no defined contents. */
final class NodeRefs {
  private NodeRefs() {}

  /** Calls {@code f} with the name of every node the node's arguments refer to (lists included). */
  static void forEach(Node n, Consumer<String> f) {
    for (Arg a : n.args()) {
      refs(a, f);
    }
    for (Arg a : n.kwargs().values()) {
      refs(a, f);
    }
  }

  /**
   * Like {@link #forEach}, but only the nodes whose values the node's value depends on: a call
   * that reads its tensor arguments' shapes and dtypes alone ({@code ones_like}, {@code new_zeros},
   * ...) depends on none, so it is a constant.
   */
  static void forEachValue(Node n, Consumer<String> f) {
    if (!AtenNormalizer.readsShapesOnly(n.target())) {
      forEach(n, f);
    }
  }

  private static void refs(Arg a, Consumer<String> f) {
    if (a instanceof Arg.NodeRef r) {
      f.accept(r.name());
    } else if (a instanceof Arg.ListArg l) {
      for (Arg x : l.items()) {
        refs(x, f);
      }
    }
  }

  /**
   * Whether a value computed from these inputs has no defined contents: some input has none and
   * every other is a constant (a view of an uninitialized buffer, say).
   */
  static <T> boolean undefinedFrom(Iterable<T> inputs, Predicate<T> undefined, Predicate<T> constant) {
    boolean some = false;
    boolean all = true;
    for (T x : inputs) {
      some |= undefined.test(x);
      all &= undefined.test(x) || constant.test(x);
    }
    return some && all;
  }
}
