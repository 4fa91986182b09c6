package dev.entangle.rules;

import dev.entangle.core.Op;
import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.Applier.Unions;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code expand(x, S) = concat(expand(x, S'), ..., expand(x, S'), dim=d)} (k copies) when {@code
 * expand(x, S')} already exists, S' is S with dim d divided by k, and the expand repeats x along d:
 * every block along a repeated dim is the same. This is how a per-rank broadcast of a replicated
 * value (a mask, a rotary table) relates to the sequential model's larger broadcast; only sizes
 * that the graphs themselves made are used, so it invents nothing. Broadcasts of 0-d values (filled
 * constants) are left alone: lemmas slice them where needed.
 */
final class ExpandTiling implements NativeRule<EqualsNode> {
  static final String NAME = "expand-tiling";

  /** More copies than this are not built. */
  static final long MAX_COPIES = 64;

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String doc() {
    return "an expand along a dim it repeats equals the concat of copies of an existing smaller expand of the same"
        + " tensor";
  }

  private record Expand(int cls, long[] shape) {}

  @Override
  public void search(EGraph<TypeInfo> g, SearchDeadline deadline, Found<EqualsNode> found) {
    Map<Integer, List<Expand>> byOperand = new LinkedHashMap<>();
    for (EGraph.Held held : g.nodesWithOp(Op.EXPAND.id())) {
      deadline.poll();
      int c = held.cls();
      ENode n = held.node();
      byOperand
          .computeIfAbsent(g.find(n.child(0)), k -> new ArrayList<>())
          .add(new Expand(g.find(c), n.attrs()));
    }
    for (var e : byOperand.entrySet()) {
      if (e.getValue().size() < 2) {
        continue;
      }
      long[] x = g.data(e.getKey()).shape();
      if (x.length == 0) {
        continue; // a filled constant: slicing it is cheap, tiling it would make it a concat
        // everywhere
      }
      for (Expand big : e.getValue()) {
        deadline.poll();
        for (Expand small : e.getValue()) {
          int d = onlyDifference(big.shape(), small.shape());
          if (d < 0 || big.cls() == small.cls() || !repeats(x, big.shape(), d)) {
            continue;
          }
          long k = big.shape()[d] / small.shape()[d];
          if (small.shape()[d] == 0
              || big.shape()[d] % small.shape()[d] != 0
              || k < 2
              || k > MAX_COPIES) {
            continue;
          }
          int[] parts = new int[(int) k];
          Arrays.fill(parts, small.cls());
          found.match(new EqualsNode(big.cls(), Op.CONCAT.id(), new long[] {d}, parts));
        }
      }
    }
  }

  @Override
  public void apply(EGraph<TypeInfo> g, EqualsNode match, Unions unions) {
    match.apply(g, unions);
  }

  /** The one dim where two shapes of one rank differ, else -1. */
  private static int onlyDifference(long[] a, long[] b) {
    if (a.length != b.length) {
      return -1;
    }
    int d = -1;
    for (int i = 0; i < a.length; i++) {
      if (a[i] != b[i]) {
        if (d >= 0) {
          return -1;
        }
        d = i;
      }
    }
    return d;
  }

  /** Whether expanding a tensor of shape x to shape repeats it along dim d (x right-aligned). */
  private static boolean repeats(long[] x, long[] shape, int d) {
    int off = shape.length - x.length;
    return d < off || x[d - off] == 1;
  }
}
