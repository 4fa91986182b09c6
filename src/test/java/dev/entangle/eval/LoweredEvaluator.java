package dev.entangle.eval;

import dev.entangle.core.CoreProgram;
import dev.entangle.core.OpTable;
import dev.entangle.core.numeric.Tensor;
import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.Graph;
import dev.entangle.lower.Lowering;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/** A {@link GraphEvaluator} for tests that hold graphs: each graph is lowered, then evaluated. */
public final class LoweredEvaluator {
  private final OpTable table;
  private final GraphEvaluator evaluator;

  public LoweredEvaluator(OpTable table, WorkBudget budget) {
    this.table = table;
    this.evaluator = new GraphEvaluator(table, budget);
  }

  /** Evaluates a lowered program, as {@link GraphEvaluator#evaluate} does. */
  public Evaluation evaluate(CoreProgram p, IntFunction<Map<String, Tensor>> given) {
    return evaluator.evaluate(p, given);
  }

  /** Evaluates G_s on {@code given} values by node name. */
  public Evaluation evaluate(Graph gs, Map<String, Tensor> given) {
    return evaluator.evaluate(Lowering.sequential(gs, table), k -> given);
  }

  /** Evaluates every rank of G_d; {@code given.get(k)} holds rank k's values. */
  public Evaluation evaluate(DistributedGraph gd, List<Map<String, Tensor>> given) {
    if (given.size() != gd.worldSize()) {
      throw new IllegalArgumentException(
          "values for " + given.size() + " ranks, but G_d has " + gd.worldSize());
    }
    return evaluator.evaluate(Lowering.distributed(gd, table), given::get);
  }
}
