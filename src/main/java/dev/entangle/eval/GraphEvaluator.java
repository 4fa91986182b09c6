package dev.entangle.eval;

import dev.entangle.core.CoreOp;
import dev.entangle.core.CoreProgram;
import dev.entangle.core.CoreValue;
import dev.entangle.core.OpTable;
import dev.entangle.core.TypeInfo;
import dev.entangle.core.numeric.Tensor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * Evaluates G_s, or every rank of G_d, on given values: each operation of the lowered {@link
 * CoreProgram} is replayed into an {@link EvalBuilder}, so the numbers follow exactly the terms the
 * checker reasons about (a collective computes what its lowering says). Values may be given for any
 * value: inputs must be; a given value for another (a cut point of the relation) replaces what its
 * operation computes. Deterministic: the same program and values give the same results.
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

  /**
   * Evaluates a lowered program; {@code given.apply(k)} holds graph k's values by node name (k = 0
   * for G_s).
   */
  public Evaluation evaluate(CoreProgram p, IntFunction<Map<String, Tensor>> given) {
    Run run = new Run(p, given);
    ProgramWalker.walk(p, run.builder, run);
    return run.result();
  }

  /** One evaluation: its builder, the values kept so far, and where the budget stopped it. */
  private final class Run implements ProgramWalker.Handler {
    private final CoreProgram p;
    private final IntFunction<Map<String, Tensor>> given;
    final EvalBuilder builder;
    private final List<Evaluation.Entry> entries = new ArrayList<>();
    private int mark;
    private String stopAt;
    private int skipped;

    Run(CoreProgram p, IntFunction<Map<String, Tensor>> given) {
      this.p = p;
      this.given = given;
      this.builder = new EvalBuilder(new Kernels(table, budget), p::undefinedOrigin);
    }

    private String label(CoreOp op) {
      return (op.graph() < 0 ? op.name() : "r" + op.graph() + "." + op.name())
          + " ("
          + op.target()
          + ")";
    }

    @Override
    public int given(CoreValue v) {
      Tensor t = given.apply(Math.max(v.graph(), 0)).get(v.name());
      if (t == null) {
        return -1;
      }
      if (!Arrays.equals(v.type().shape(), t.shape())) {
        throw new IllegalArgumentException(
            "the value given for "
                + v.label()
                + " has shape "
                + Arrays.toString(t.shape())
                + " but the graph records "
                + Arrays.toString(v.type().shape()));
      }
      return builder.input(new Value.Known(t));
    }

    @Override
    public int unavailable(CoreValue v, String reason) {
      return builder.input(new Value.Unavailable(v.type(), reason));
    }

    @Override
    public int[] failed(CoreOp op, String reason) {
      int[] items = new int[op.results().length];
      for (int i = 0; i < items.length; i++) {
        TypeInfo item = op.results()[i] < 0 ? null : op.steps().type(op.results()[i]);
        items[i] =
            item == null
                ? -1
                : builder.input(new Value.Unavailable(item, label(op) + ": " + reason));
      }
      return items;
    }

    @Override
    public void before(CoreOp op) {
      mark = builder.mark();
      builder.at(label(op));
    }

    @Override
    public void after(CoreOp op, int[] handles) {
      builder.release(mark, handles);
    }

    /** Records the value of every value, as the walk produced it. */
    Evaluation result() {
      return new Evaluation(
          entries,
          stopAt == null ? null : new Evaluation.Stop(stopAt, budget.exhaustedBecause(), skipped));
    }

    @Override
    public void done(CoreValue value, int handle) {
      if (handle < 0) {
        return;
      }
      Value v = builder.value(handle);
      if (v instanceof Value.Known k) {
        try {
          budget.hold(k.tensor().numel(), "the value of " + value.label());
        } catch (BudgetExhausted e) {
          v = new Value.Unavailable(v.type(), e.getMessage());
        }
      }
      if (budget.exhaustedBecause() != null && v instanceof Value.Unavailable) {
        if (stopAt == null) {
          stopAt = value.label();
        }
        skipped++;
      }
      entries.add(new Evaluation.Entry(value.graph(), value.name(), v));
    }
  }
}
