package dev.entangle.eval;

import dev.entangle.collectives.CollectiveGroups;
import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.Graph;
import dev.entangle.graph.Node;
import dev.entangle.ops.AtenNormalizer;
import dev.entangle.ops.OpTable;
import dev.entangle.ops.TypeInfo;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * Evaluates G_s, or every rank of G_d, on given values: each node is lowered with the checker's own
 * lowering ({@link AtenNormalizer}) into an {@link EvalBuilder}, collectives pair across ranks with
 * {@link CollectiveGroups} and compute what {@link dev.entangle.collectives.CollectiveLowering}
 * says. Values may be given for any node: inputs must be; a given value for another node (a cut
 * point of the relation) replaces what the node computes. Deterministic: the same graphs and values
 * give the same results.
 */
public final class GraphEvaluator {
  private final OpTable table;
  private final WorkBudget budget;

  /**
   * @param table the run's operator table (opaque operators are named there)
   * @param budget the work and memory this evaluator may use, shared by its evaluations
   */
  public GraphEvaluator(OpTable table, WorkBudget budget) {
    this.table = table;
    this.budget = budget;
  }

  /** Evaluates G_s on {@code given} values by node name. */
  public Evaluation evaluate(Graph gs, Map<String, Tensor> given) {
    Run run = new Run(List.of(gs), rank -> given);
    GraphWalker.sequential(gs, new AtenNormalizer(table), run.builder, run);
    return run.result();
  }

  /** Evaluates every rank of G_d; {@code given.get(k)} holds rank k's values by node name. */
  public Evaluation evaluate(DistributedGraph gd, List<Map<String, Tensor>> given) {
    if (given.size() != gd.worldSize()) {
      throw new IllegalArgumentException(
          "values for " + given.size() + " ranks, but G_d has " + gd.worldSize());
    }
    Run run = new Run(gd.ranks(), given::get);
    GraphWalker.distributed(
        gd, CollectiveGroups.of(gd), new AtenNormalizer(table), run.builder, run);
    return run.result();
  }

  /** One evaluation: its builder, the values kept so far, and where the budget stopped it. */
  private final class Run implements GraphWalker.Handler {
    private final List<Graph> graphs;
    private final IntFunction<Map<String, Tensor>> given;
    final EvalBuilder builder;
    private final List<Evaluation.Entry> entries = new ArrayList<>();
    private int mark;
    private String stopAt;
    private int skipped;

    Run(List<Graph> graphs, IntFunction<Map<String, Tensor>> given) {
      this.graphs = graphs;
      this.given = given;
      this.builder = new EvalBuilder(new Kernels(table, budget), this::undefinedOrigin);
    }

    private Graph graph(int rank) {
      return graphs.get(Math.max(rank, 0));
    }

    private String label(int rank, Node n) {
      return rank < 0 ? n.name() : "r" + rank + "." + n.name();
    }

    /**
     * Names the node behind an {@code undef} id: the graph id in the high half, the node index in
     * the low.
     */
    private String undefinedOrigin(long id) {
      int rank = (int) (id >> 32);
      int index = (int) id;
      Graph g = graph(rank);
      if (index < 0 || index >= g.nodes().size()) {
        return "undef[" + id + "]";
      }
      Node n = g.nodes().get(index);
      return label(rank, n) + " (" + n.target() + ")";
    }

    @Override
    public int[] given(int rank, Node node) {
      Tensor t = given.apply(Math.max(rank, 0)).get(node.name());
      if (t == null) {
        return null;
      }
      TypeInfo declared = node.type() == null ? null : AtenNormalizer.typeOf(node.type(), node);
      if (declared != null && !Arrays.equals(declared.shape(), t.shape())) {
        throw new IllegalArgumentException(
            "the value given for "
                + label(rank, node)
                + " has shape "
                + Arrays.toString(t.shape())
                + " but the graph records "
                + Arrays.toString(declared.shape()));
      }
      return new int[] {builder.input(new Value.Known(t))};
    }

    @Override
    public int[] failed(int rank, Node node, String reason) {
      TypeInfo type;
      try {
        type = AtenNormalizer.declaredType(node);
      } catch (RuntimeException e) {
        type = null;
      }
      String why = label(rank, node) + " (" + node.target() + "): " + reason;
      if (type != null && type.isTuple()) {
        int[] items = new int[type.items().size()];
        for (int i = 0; i < items.length; i++) {
          TypeInfo item = type.items().get(i);
          items[i] = item == null ? -1 : builder.input(new Value.Unavailable(item, why));
        }
        return items;
      }
      return new int[] {builder.input(new Value.Unavailable(type, why))};
    }

    @Override
    public void before(int rank, Node node) {
      mark = builder.mark();
      builder.at(label(rank, node) + " (" + node.target() + ")");
    }

    @Override
    public void after(int rank, Node node, int[] handles) {
      builder.release(mark, handles);
    }

    /** Records the value of every node with one tensor result, as the walk produced it. */
    Evaluation result() {
      return new Evaluation(
          entries,
          stopAt == null ? null : new Evaluation.Stop(stopAt, budget.exhaustedBecause(), skipped));
    }

    @Override
    public void done(int rank, Node node, int[] handles) {
      if (handles.length != 1 || node.meta().tuple() || handles[0] < 0) {
        return;
      }
      Value v = builder.value(handles[0]);
      if (v instanceof Value.Known k) {
        try {
          budget.hold(k.tensor().numel(), "the value of " + label(rank, node));
        } catch (BudgetExhausted e) {
          v = new Value.Unavailable(v.type(), e.getMessage());
        }
      }
      if (budget.exhaustedBecause() != null && v instanceof Value.Unavailable) {
        if (stopAt == null) {
          stopAt = label(rank, node);
        }
        skipped++;
      }
      entries.add(new Evaluation.Entry(rank, node.name(), v));
    }
  }
}
