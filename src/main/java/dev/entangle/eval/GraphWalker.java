package dev.entangle.eval;

import dev.entangle.collectives.Collective;
import dev.entangle.collectives.CollectiveGroups;
import dev.entangle.collectives.CollectiveLowering;
import dev.entangle.graph.Arg;
import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.Graph;
import dev.entangle.graph.Node;
import dev.entangle.graph.NodeOp;
import dev.entangle.ops.AtenNormalizer;
import dev.entangle.ops.LoweringException;
import dev.entangle.ops.ShapeException;
import dev.entangle.ops.TermBuilder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Lowers every node of G_s, or of every rank of G_d, into one {@link TermBuilder}, in an order in
 * which each node's operands come first: node order within a rank, and across ranks as a run would
 * go, each rank advancing until a collective waits for what another rank has not sent yet. It knows
 * nothing of values: what a handle holds is the builder's business.
 */
final class GraphWalker {
  /** What the walk asks of its user. */
  interface Handler {
    /**
     * The handles of a node whose value is given (an input, or a value set from outside), else
     * null.
     */
    int[] given(int rank, Node node);

    /** Handles standing for a node that could not be lowered, and why. */
    int[] failed(int rank, Node node, String reason);

    /** Called before a node is lowered. */
    void before(int rank, Node node);

    /**
     * Called after a node is lowered, with its handles (one per result item, -1 for a non-tensor
     * item).
     */
    void after(int rank, Node node, int[] handles);

    /** Called once for every node but the output, with its handles however they were made. */
    void done(int rank, Node node, int[] handles);
  }

  private final AtenNormalizer normalizer;
  private final TermBuilder b;
  private final Handler handler;
  private final List<Graph> graphs;

  /** Null for G_s, whose collectives are identities. */
  private final CollectiveGroups groups;

  private final List<Map<String, int[]>> handles = new ArrayList<>();

  private GraphWalker(
      List<Graph> graphs,
      CollectiveGroups groups,
      AtenNormalizer normalizer,
      TermBuilder b,
      Handler handler) {
    this.graphs = graphs;
    this.groups = groups;
    this.normalizer = normalizer;
    this.b = b;
    this.handler = handler;
    for (int r = 0; r < graphs.size(); r++) {
      handles.add(new HashMap<>());
    }
  }

  /** Walks G_s; its nodes are reported with rank -1. */
  static void sequential(Graph gs, AtenNormalizer normalizer, TermBuilder b, Handler handler) {
    GraphWalker w = new GraphWalker(List.of(gs), null, normalizer, b, handler);
    for (Node n : gs.nodes()) {
      w.visit(0, n);
    }
  }

  /** Walks every rank of G_d, collectives paired by {@code groups}. */
  static void distributed(
      DistributedGraph gd,
      CollectiveGroups groups,
      AtenNormalizer normalizer,
      TermBuilder b,
      Handler handler) {
    GraphWalker w = new GraphWalker(gd.ranks(), groups, normalizer, b, handler);
    int[] next = new int[gd.worldSize()];
    boolean progress = true;
    while (progress) {
      progress = false;
      for (int r = 0; r < gd.worldSize(); r++) {
        List<Node> nodes = gd.rank(r).nodes();
        while (next[r] < nodes.size() && w.ready(r, nodes.get(next[r]))) {
          w.visit(r, nodes.get(next[r]++));
          progress = true;
        }
      }
    }
    for (int r = 0; r < gd.worldSize(); r++) {
      List<Node> nodes = gd.rank(r).nodes();
      for (int i = next[r]; i < nodes.size(); i++) {
        Node n = nodes.get(i);
        w.record(
            r,
            n,
            handler.failed(
                r,
                n,
                "rank "
                    + r
                    + " never gets past collective '"
                    + nodes.get(next[r]).name()
                    + "': another member rank issues its collectives in another order"));
      }
    }
  }

  /**
   * Whether a collective's members have all computed what they send (other nodes are always ready).
   */
  private boolean ready(int rank, Node n) {
    CollectiveGroups.Instance inst =
        n.op() == NodeOp.CALL_FUNCTION ? groups.of(rank, n.name()) : null;
    if (inst == null) {
      return true;
    }
    for (Collective c : inst.members()) {
      if (!handles.get(c.rank()).containsKey(c.input())) {
        return false;
      }
    }
    return true;
  }

  private int rankOf(int index) {
    return groups == null ? -1 : index;
  }

  private void visit(int index, Node n) {
    if (n.op() == NodeOp.OUTPUT) {
      return;
    }
    int rank = rankOf(index);
    int[] given = handler.given(rank, n);
    if (given != null) {
      record(index, n, given);
      return;
    }
    handler.before(rank, n);
    int[] out;
    try {
      out = lower(index, n);
    } catch (LoweringException | ShapeException | EvalException | IllegalArgumentException e) {
      out = handler.failed(rank, n, e.getMessage());
    }
    handler.after(rank, n, out);
    record(index, n, out);
  }

  private void record(int index, Node n, int[] h) {
    handles.get(index).put(n.name(), h);
    handler.done(rankOf(index), n, h);
  }

  private int[] lower(int index, Node n) {
    int rank = rankOf(index);
    if (n.op() == NodeOp.PLACEHOLDER || n.op() == NodeOp.GET_ATTR && n.meta().value() == null) {
      throw new EvalException("no value was given for the input " + n.name());
    }
    if (n.op() == NodeOp.GET_ATTR) {
      return new int[] {AtenNormalizer.constant(n, b)};
    }
    if (n.op() != NodeOp.CALL_FUNCTION) {
      throw new EvalException("node kind '" + n.op().jsonName() + "' is not evaluated");
    }
    if (groups == null) {
      String same = CollectiveLowering.singleRankInput(n);
      if (same != null) {
        return operand(index, same);
      }
    } else if (Collective.isWait(n)) {
      return operand(index, ((Arg.NodeRef) n.arg(0)).name());
    } else {
      CollectiveGroups.Instance inst = groups.of(rank, n.name());
      if (inst != null) {
        return new int[] {
          CollectiveLowering.lower(inst, rank, (r, name) -> operand(r, name)[0], b)
        };
      }
    }
    return normalizer.lower(
        n,
        new AtenNormalizer.Inputs() {
          @Override
          public int[] of(String name) {
            return operand(index, name);
          }

          @Override
          public int graphId() {
            return rank;
          }
        },
        b);
  }

  private int[] operand(int index, String name) {
    int[] h = handles.get(index).get(name);
    if (h == null) {
      throw new LoweringException("its operand " + name + " has no value");
    }
    return h;
  }
}
