package dev.entangle.cli;

import dev.entangle.core.CoreProgram;
import dev.entangle.refine.OpaqueOperators;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code check -v} at load time: the operators the lowered programs keep opaque (no lowering, no
 * kernel), each with how many nodes of G_s and G_d use it and the first G_s one.
 */
final class OpaqueListing {
  private OpaqueListing() {}

  static void print(CoreProgram gs, CoreProgram gd, PrintWriter err) {
    Map<String, List<String>> inGs = OpaqueOperators.in(gs);
    Map<String, List<String>> inGd = OpaqueOperators.in(gd);
    Map<String, int[]> counts = new TreeMap<>();
    inGs.forEach((t, nodes) -> counts.computeIfAbsent(t, k -> new int[2])[0] = nodes.size());
    inGd.forEach((t, nodes) -> counts.computeIfAbsent(t, k -> new int[2])[1] = nodes.size());
    if (counts.isEmpty()) {
      err.println("operators kept opaque: none (every operator is lowered to the core language)");
    } else {
      err.println(
          "operators kept opaque (no lowering, no kernel: each maps only where G_d makes the same"
              + " call on related operands; a check that stops at one is 'unsupported'):");
      counts.forEach(
          (t, n) ->
              err.println(
                  "  "
                      + t
                      + ": "
                      + n[0]
                      + " G_s node(s)"
                      + (n[0] > 0 ? " (first " + inGs.get(t).get(0) + ")" : "")
                      + ", "
                      + n[1]
                      + " G_d node(s)"));
    }
    err.flush();
  }
}
