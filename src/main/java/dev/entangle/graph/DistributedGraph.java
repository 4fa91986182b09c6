package dev.entangle.graph;

import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * The distributed implementation G_d: one graph per rank.
 *
 * @param worldSize number of ranks
 * @param processGroups group name to member ranks; a group not listed means all ranks
 * @param ranks rank k's graph at index k
 * @param source where it was read from, for messages
 */
public record DistributedGraph(
    int worldSize, Map<String, List<Integer>> processGroups, List<Graph> ranks, String source) {
  public DistributedGraph {
    processGroups = Map.copyOf(processGroups);
    ranks = List.copyOf(ranks);
  }

  public Graph rank(int k) {
    return ranks.get(k);
  }

  /** Members of a group: the listed ranks, or all ranks for a name the file does not list. */
  public List<Integer> members(String group) {
    List<Integer> m = group == null ? null : processGroups.get(group);
    if (m != null) {
      return m;
    }
    return IntStream.range(0, worldSize).boxed().toList();
  }
}
