package dev.entangle.cli;

import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.Graph;
import dev.entangle.graph.Node;
import dev.entangle.util.InputException;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * A G_d of one rank whose collectives combine several: the file of a single rank (one printed graph
 * imported alone) given where every rank's graphs belong. Said before the relation is checked
 * against it, which would otherwise blame the relation's shard dims.
 */
final class RankCount {
  private RankCount() {}

  /** Throws an input error when a one-rank G_d, with no group of one rank, holds collectives. */
  static void check(DistributedGraph gd, Path file) {
    if (gd.worldSize() != 1 || !gd.processGroups().isEmpty()) {
      return;
    }
    Graph only = gd.rank(0);
    Map<String, Integer> collectives = new TreeMap<>();
    for (Node n : only.nodes()) {
      String t = n.target();
      if (t != null && t.startsWith("_c10d_functional.") && !t.contains("wait_tensor")) {
        String op = t.substring("_c10d_functional.".length());
        int dot = op.indexOf('.');
        collectives.merge(dot > 0 ? op.substring(0, dot) : op, 1, Integer::sum);
      }
    }
    if (collectives.isEmpty()) {
      return;
    }
    throw new InputException(
        "G_d ("
            + file
            + ") has one rank, but its collectives "
            + collectives
            + " combine the tensors of several: it is one rank's graph. Give every rank's graph in"
            + " one G_d file (entangle import gd.r0.py gd.r1.py ... -o gd.json, rank K from the"
            + " K-th file), or, for a group of one rank, list it in \"process_groups\".");
  }
}
