package dev.entangle.refine;

import dev.entangle.collectives.Collective;
import dev.entangle.collectives.CollectiveGroups;
import dev.entangle.graph.Arg;
import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.Graph;
import dev.entangle.graph.Node;
import dev.entangle.graph.NodeOp;
import dev.entangle.ops.AtenNormalizer;
import dev.entangle.ops.TypeInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * G_d as the checker explores it: every tensor value of every rank has an id, the ids it is
 * computed from ({@link #deps}, which for a collective are what every member sent), the ids
 * computed from it ({@link #users}), and whether it is computed from constants alone.
 */
final class GdModel {
  /** One tensor value: rank {@code rank}'s node {@code node}. */
  record Value(int id, int rank, Node node) {
    String label() {
      return "r" + rank + "." + node.name();
    }
  }

  final DistributedGraph gd;
  final CollectiveGroups collectives;
  final List<Value> values = new ArrayList<>();
  final Map<String, Integer> ids = new HashMap<>();
  final List<TypeInfo> types = new ArrayList<>();
  int[][] deps;
  int[][] users;
  boolean[] constant;
  boolean[] undefined;
  boolean[] output;
  int operators;

  GdModel(DistributedGraph gd, CollectiveGroups collectives) {
    this.gd = gd;
    this.collectives = collectives;
    for (int r = 0; r < gd.worldSize(); r++) {
      for (Node n : gd.rank(r).nodes()) {
        if (n.op() == NodeOp.CALL_FUNCTION) {
          operators++;
        }
        if (n.op() == NodeOp.OUTPUT || n.type() == null) {
          continue;
        }
        int id = values.size();
        values.add(new Value(id, r, n));
        ids.put(key(r, n.name()), id);
        types.add(AtenNormalizer.typeOf(n.type(), n));
      }
    }
    int n = values.size();
    deps = new int[n][];
    constant = new boolean[n];
    undefined = new boolean[n];
    output = new boolean[n];
    List<List<Integer>> us = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      us.add(new ArrayList<>());
    }
    for (Value v : values) {
      int[] d = computeDeps(v);
      deps[v.id()] = d;
      boolean c = isSource(v.node());
      if (d.length > 0) {
        c = true;
        for (int x : d) {
          c &= constant[x];
        }
      }
      constant[v.id()] = c && !isLeaf(v.node());
      if (!constant[v.id()] && v.node().op() == NodeOp.CALL_FUNCTION) {
        // undefined values (uninitialized buffers, dropout masks, views of them) are inlined too:
        // their contents never matter, so they never wait on anything
        boolean undefined = dev.entangle.ops.AtenNormalizer.isUndefinedSource(v.node(), graph(v.rank())::node)
            || NodeRefs.undefinedFrom(java.util.Arrays.stream(d).boxed().toList(), x -> this.undefined[x],
                x -> constant[x]);
        this.undefined[v.id()] = undefined;
        constant[v.id()] = undefined;
      }
      for (int x : d) {
        us.get(x).add(v.id());
      }
    }
    users = new int[n][];
    for (int i = 0; i < n; i++) {
      users[i] = us.get(i).stream().mapToInt(Integer::intValue).distinct().toArray();
    }
    for (int r = 0; r < gd.worldSize(); r++) {
      for (Arg a : gd.rank(r).outputs()) {
        if (a instanceof Arg.NodeRef ref && id(r, ref.name()) >= 0) {
          output[id(r, ref.name())] = true;
        }
      }
    }
  }

  /**
   * Whether an output relation may use the value: G_d's outputs, and its inputs, which the user
   * supplies and so has at hand.
   */
  boolean available(int id) {
    return output[id] || isLeaf(value(id).node());
  }

  static String key(int rank, String name) {
    return rank + "/" + name;
  }

  /** The id of rank's node, or -1 when it is not a tensor value. */
  int id(int rank, String name) {
    Integer id = ids.get(key(rank, name));
    return id == null ? -1 : id;
  }

  Value value(int id) {
    return values.get(id);
  }

  Graph graph(int rank) {
    return gd.rank(rank);
  }

  /** Placeholders and attributes without a known value: the graph's inputs. */
  static boolean isLeaf(Node n) {
    return n.op() == NodeOp.PLACEHOLDER || (n.op() == NodeOp.GET_ATTR && n.meta().value() == null);
  }

  /** Nodes that compute a value from nothing (constants, arange, empty, ...). */
  private static boolean isSource(Node n) {
    return n.op() == NodeOp.GET_ATTR && n.meta().value() != null
        || n.op() == NodeOp.CALL_FUNCTION;
  }

  private int[] computeDeps(Value v) {
    Node n = v.node();
    if (isLeaf(n) || n.op() != NodeOp.CALL_FUNCTION) {
      return new int[0];
    }
    CollectiveGroups.Instance inst = collectives.of(v.rank(), n.name());
    List<Integer> out = new ArrayList<>();
    if (inst != null) {
      for (Collective c : inst.members()) {
        addDep(c.rank(), c.input(), out);
      }
    } else if (n.target().equals("getitem")) {
      Node tuple = graph(v.rank()).node(((Arg.NodeRef) n.arg(0)).name());
      collectRefs(v.rank(), tuple, out);
    } else {
      collectRefs(v.rank(), n, out);
    }
    return out.stream().mapToInt(Integer::intValue).distinct().toArray();
  }

  private void collectRefs(int rank, Node n, List<Integer> out) {
    NodeRefs.forEachValue(n, name -> addDep(rank, name, out));
  }

  private void addDep(int rank, String name, List<Integer> out) {
    int id = id(rank, name);
    if (id >= 0) {
      out.add(id);
      return;
    }
    Node n = graph(rank).node(name);
    if (n != null && n.op() == NodeOp.CALL_FUNCTION) {
      collectRefs(rank, n, out); // a tuple-valued node: depend on what it reads
    }
  }
}
