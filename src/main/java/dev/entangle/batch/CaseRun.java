package dev.entangle.batch;

import dev.entangle.check.CheckOutcome;
import dev.entangle.core.CoreProgram;
import dev.entangle.refine.Failure;

/**
 * One case's run: its outcome, or the error that stopped it before a verdict.
 *
 * @param batchCase the case
 * @param outcome the check's outcome, or null when it could not run
 * @param error why it could not run (one paragraph), or null
 * @param seconds wall time of the case, reading and importing included
 */
public record CaseRun(BatchCase batchCase, CheckOutcome outcome, String error, double seconds) {

  /** The verdict's name, or {@code error} when the case did not run. */
  public String verdict() {
    return outcome == null ? "error" : outcome.result().verdict().json();
  }

  /**
   * The G_s node a failure names (the operator, or the output when the failure is about an output),
   * or null.
   */
  public String failingOperator() {
    if (outcome == null || outcome.result().failure() == null) {
      return null;
    }
    Failure f = outcome.result().failure();
    CoreProgram gs = outcome.programs().gs();
    if (f.operator() >= 0) {
      return gs.op(f.operator()).name();
    }
    if (f instanceof Failure.OutputNotReturned o) {
      return gs.value(o.output()).name();
    }
    if (f instanceof Failure.ProvedOnNumbers p) {
      return gs.value(p.assumption().output()).name();
    }
    return null;
  }

  /** Why the case does not meet its expectation, or null when it does. */
  public String mismatch() {
    if (outcome == null) {
      return "did not run: " + error;
    }
    return batchCase.expect().mismatch(verdict(), failingOperator());
  }

  /** Whether the case meets its expectation. */
  public boolean met() {
    return mismatch() == null;
  }
}
