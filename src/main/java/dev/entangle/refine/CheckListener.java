package dev.entangle.refine;

import dev.entangle.core.CoreOp;
import dev.entangle.core.CoreTerm;
import dev.entangle.egraph.RunReport;
import java.util.List;

/**
 * Hears about a check as it runs (progress, {@code --verbose}, tracing for lemma authors); the
 * algorithm never prints.
 */
public interface CheckListener {
  /**
   * One G_s operation was checked.
   *
   * @param index its position among the operations to check (from 0)
   * @param total how many will be checked
   * @param op the operation
   * @param outcome what was found
   */
  default void operatorChecked(int index, int total, CoreOp op, OperatorSummary outcome) {}

  /** One saturation of an operation's e-graph ended. */
  default void saturated(CoreOp op, RunReport report, int nodes, int classes, int explored) {}

  /** An operation's e-graph proved a group of G_d terms equal, kept for later operations. */
  default void learned(CoreOp op, List<CoreTerm> group) {}

  /**
   * How many saturations ran and how many were replayed from an operation whose e-graph was built
   * alike (told once, before {@link #finished}; not told when replays are off). With checks ahead
   * of their turn the counts depend on timing.
   */
  default void saturationsReplayed(long replayed, long ran) {}

  /** The check is over. */
  default void finished() {}

  /**
   * What one operation's check found.
   *
   * @param mapped whether every output has a clean expression
   * @param nodes e-nodes of its e-graph
   * @param explored G_d values brought in
   * @param millis time taken
   * @param firstOutput the first output with a clean expression, or -1
   * @param firstTerm that expression, or null
   */
  record OperatorSummary(
      boolean mapped,
      int nodes,
      int explored,
      double millis,
      int firstOutput,
      CoreTerm firstTerm) {}

  CheckListener NONE = new CheckListener() {};
}
