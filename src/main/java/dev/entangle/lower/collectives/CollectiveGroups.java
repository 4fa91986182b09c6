package dev.entangle.lower.collectives;

import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.Graph;
import dev.entangle.graph.Node;
import dev.entangle.graph.NodeOp;
import dev.entangle.graph.TensorType;
import dev.entangle.util.InputException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Pairs up the collectives of G_d across ranks: on each rank, the n-th collective of a group (in
 * node order) belongs with the n-th collective of that group on every other member rank. Different
 * kinds, shapes or counts are input errors that name the collectives.
 */
public final class CollectiveGroups {
  /**
   * One collective call as all members perform it; {@code members.get(i)} runs on rank {@code
   * ranks.get(i)}.
   */
  public record Instance(List<Integer> ranks, List<Collective> members) {
    /** The member running on {@code rank}. */
    public Collective on(int rank) {
      return members.get(ranks.indexOf(rank));
    }

    /** The position of {@code rank} among the members. */
    public int position(int rank) {
      return ranks.indexOf(rank);
    }
  }

  private final Map<String, Instance> byNode = new HashMap<>();

  private CollectiveGroups() {}

  /** Reads and pairs every collective of {@code gd}. */
  public static CollectiveGroups of(DistributedGraph gd) {
    CollectiveGroups out = new CollectiveGroups();
    Map<String, Map<Integer, List<Collective>>> perGroup = new LinkedHashMap<>();
    for (int r = 0; r < gd.worldSize(); r++) {
      Graph g = gd.rank(r);
      for (Node n : g.nodes()) {
        if (n.op() != NodeOp.CALL_FUNCTION) {
          continue;
        }
        Collective c;
        try {
          c = Collective.read(n, r);
        } catch (IllegalArgumentException e) {
          throw new InputException(
              gd.source() + ": rank " + r + ", node '" + n.name() + "': " + e.getMessage() + ".");
        }
        if (c == null) {
          continue;
        }
        String key = c.group() == null ? "" : c.group();
        perGroup
            .computeIfAbsent(key, k -> new LinkedHashMap<>())
            .computeIfAbsent(r, k -> new ArrayList<>())
            .add(c);
      }
    }
    for (var e : perGroup.entrySet()) {
      String group = e.getKey();
      Map<Integer, List<Collective>> lists = e.getValue();
      List<Integer> members = gd.members(group.isEmpty() ? null : group);
      if (!gd.processGroups().containsKey(group) && lists.size() == 1 && gd.worldSize() > 1) {
        // a group no file lists and only one rank uses is that rank's own group (e.g. a
        // data-parallel group of size 1 in a tensor-parallel job)
        members = List.copyOf(lists.keySet());
      }
      for (int r : lists.keySet()) {
        if (!members.contains(r)) {
          Collective c = lists.get(r).get(0);
          throw new InputException(
              gd.source()
                  + ": rank "
                  + r
                  + ", node '"
                  + c.node().name()
                  + "' is a collective of group '"
                  + group
                  + "', but rank "
                  + r
                  + " is not a member of that group "
                  + members
                  + "; fix process_groups in the G_d file (or --group when importing).");
        }
      }
      int count = -1;
      int countRank = -1;
      for (int r : members) {
        int n = lists.getOrDefault(r, List.of()).size();
        if (count >= 0 && n != count) {
          throw new InputException(
              gd.source()
                  + ": group '"
                  + group
                  + "' has "
                  + count
                  + " collective(s) on rank "
                  + countRank
                  + " but "
                  + n
                  + " on rank "
                  + r
                  + "; every member rank must issue the same collectives in the same order "
                  + "(a collective missing on one rank?).");
        }
        count = n;
        countRank = r;
      }
      for (int i = 0; i < count; i++) {
        List<Collective> ms = new ArrayList<>();
        for (int r : members) {
          ms.add(lists.get(r).get(i));
        }
        check(gd, group, ms);
        for (Collective c : ms) {
          checkResult(gd, c, ms.size());
        }
        Instance inst = new Instance(members, List.copyOf(ms));
        for (Collective c : ms) {
          out.byNode.put(c.rank() + "/" + c.node().name(), inst);
        }
      }
    }
    return out;
  }

  private static void check(DistributedGraph gd, String group, List<Collective> ms) {
    Collective first = ms.get(0);
    for (Collective c : ms) {
      String problem = null;
      if (c.kind() != first.kind()) {
        problem = "kinds differ (" + first.kind() + " vs " + c.kind() + ")";
      } else if (first.reduceOp() != null && !first.reduceOp().equals(c.reduceOp())) {
        problem = "reduce ops differ (" + first.reduceOp() + " vs " + c.reduceOp() + ")";
      } else if (first.src() != c.src()) {
        problem = "broadcast sources differ";
      } else if (first.kind() != Collective.Kind.ALL_TO_ALL && !sameType(gd, first, c)) {
        problem = "input shapes differ (" + inputType(gd, first) + " vs " + inputType(gd, c) + ")";
      }
      if (problem != null) {
        throw new InputException(
            gd.source()
                + ": collective '"
                + first.node().name()
                + "' on rank "
                + first.rank()
                + " and '"
                + c.node().name()
                + "' on rank "
                + c.rank()
                + " are the same call of group '"
                + group
                + "' (same position in node order) but their "
                + problem
                + "; every member rank must issue the same collectives in the same order.");
      }
    }
  }

  /** The result shape a member's node records must be what its collective computes. */
  private static void checkResult(DistributedGraph gd, Collective c, int n) {
    TensorType in = inputType(gd, c);
    TensorType out = c.node().type();
    if (in == null || out == null || !in.isConcrete() || !out.isConcrete()) {
      return;
    }
    long[] s = in.sizes();
    long[] want = c.resultShape(s, n);
    if (want == null && c.kind() == Collective.Kind.REDUCE_SCATTER && s.length > 0) {
      throw new InputException(
          gd.source()
              + ": rank "
              + c.rank()
              + ", node '"
              + c.node().name()
              + "': reduce_scatter_tensor of "
              + s[0]
              + " rows over "
              + n
              + " ranks does not divide evenly.");
    }
    if (want == null) {
      return;
    }
    if (!Arrays.equals(want, out.sizes())) {
      throw new InputException(
          gd.source()
              + ": rank "
              + c.rank()
              + ", node '"
              + c.node().name()
              + "' ("
              + c.node().target()
              + ") records shape "
              + Arrays.toString(out.sizes())
              + " but over "
              + n
              + " rank(s) it computes "
              + Arrays.toString(want)
              + " from its input of shape "
              + Arrays.toString(s)
              + "; check the node in the graph file.");
    }
  }

  private static boolean sameType(DistributedGraph gd, Collective a, Collective b) {
    TensorType x = inputType(gd, a);
    TensorType y = inputType(gd, b);
    return x != null && y != null && x.shape().equals(y.shape());
  }

  private static TensorType inputType(DistributedGraph gd, Collective c) {
    Node in = gd.rank(c.rank()).node(c.input());
    return in == null ? null : in.type();
  }

  /**
   * The instance that a collective node on a rank belongs to, or null when it is not a collective.
   */
  public Instance of(int rank, String nodeName) {
    return byNode.get(rank + "/" + nodeName);
  }
}
