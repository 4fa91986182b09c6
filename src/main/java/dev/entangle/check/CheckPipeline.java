package dev.entangle.check;

import dev.entangle.core.CoreRelation;
import dev.entangle.core.OpTable;
import dev.entangle.graph.Arg;
import dev.entangle.graph.Graph;
import dev.entangle.lower.Lowering;
import dev.entangle.lower.RelationLowering;
import dev.entangle.numbers.NumericOracle;
import dev.entangle.refine.CheckListener;
import dev.entangle.refine.CheckResult;
import dev.entangle.refine.Numbers;
import dev.entangle.refine.RefinementChecker;
import dev.entangle.relation.RelationValidator;
import dev.entangle.rules.Lemmas;
import dev.entangle.util.InputException;
import java.util.List;

/**
 * The steps of one check after reading: validate the relation against the graphs, lower both sides
 * once, lower the relation, run the checker (with the numeric oracle where a proof fails). Every
 * input error is an {@link dev.entangle.util.InputException}.
 */
public final class CheckPipeline {
  private CheckPipeline() {}

  /** Validates the relation against both graphs, then lowers each side into the core language. */
  public static Programs lower(CheckInputs in) {
    requireOutputs(in.gs());
    RelationValidator.validate(in.gs(), in.gd(), in.relation());
    OpTable table = new OpTable();
    return new Programs(Lowering.sequential(in.gs(), table), Lowering.distributed(in.gd(), table));
  }

  /**
   * Fails unless G_s returns some tensor: a G_s without outputs would refine anything, vacuously.
   */
  static void requireOutputs(Graph gs) {
    if (!namesANode(gs.outputs())) {
      throw new InputException(
          gs.source()
              + ": G_s returns no tensor (its output node lists none), so there is nothing to"
              + " check; list the model's results in the output node's args, as in \"args\":"
              + " [[{\"node\": \"out\"}]].");
    }
  }

  private static boolean namesANode(List<Arg> args) {
    for (Arg a : args) {
      if (a instanceof Arg.NodeRef || (a instanceof Arg.ListArg l && namesANode(l.items()))) {
        return true;
      }
    }
    return false;
  }

  /**
   * Runs the checker over lowered programs.
   *
   * @param startNanos {@link System#nanoTime} when the check began; the timeout counts from there
   */
  public static CheckResult check(
      CheckInputs in,
      Programs p,
      Lemmas lemmas,
      CheckSettings settings,
      CheckListener listener,
      long startNanos) {
    CoreRelation relation = RelationLowering.lower(in.relation(), in.gs(), in.gd(), p.gs(), p.gd());
    Numbers numbers = settings.numbers() ? oracle(in, p, settings) : Numbers.NONE;
    return RefinementChecker.check(
        p.gs(), p.gd(), relation, lemmas, settings.options(), listener, numbers, startNanos);
  }

  /** The numeric oracle for these inputs: random draws from the relation, both sides evaluated. */
  public static Numbers oracle(CheckInputs in, Programs p, CheckSettings settings) {
    return new NumericOracle(
        in.gs(),
        in.gd(),
        in.relation(),
        p.gs(),
        p.gd(),
        new NumericOracle.Settings(settings.seed(), settings.draws(), settings.numericBudget()));
  }

  /** Validates, lowers and checks, without listening: a whole check as one call. */
  public static CheckOutcome run(CheckInputs in, Lemmas lemmas, CheckSettings settings) {
    long start = System.nanoTime();
    Programs p = lower(in);
    return new CheckOutcome(check(in, p, lemmas, settings, CheckListener.NONE, start), p);
  }
}
