package dev.entangle.batch;

import dev.entangle.check.CheckOutcome;
import dev.entangle.core.CoreProgram;
import dev.entangle.refine.Failure;

/**
 * One case's run: its outcome, or the error that stopped it before a verdict, or the phase its time
 * limit stopped it in.
 *
 * @param batchCase the case
 * @param outcome the check's outcome, or null when it could not run or was stopped
 * @param error why it could not run or where it was stopped (one paragraph), or null
 * @param seconds wall time of the case, reading and importing included
 * @param stoppedIn the phase the case's time limit stopped it in before the check could report
 *     ({@code reading the inputs}), or null
 */
public record CaseRun(
    BatchCase batchCase, CheckOutcome outcome, String error, double seconds, String stoppedIn) {

  /** A case that ran, or could not run ({@code outcome} null and {@code error} saying why). */
  public CaseRun(BatchCase batchCase, CheckOutcome outcome, String error, double seconds) {
    this(batchCase, outcome, error, seconds, null);
  }

  /**
   * Whether the case's time limit stopped it before its check could report: {@code inconclusive}.
   */
  public boolean stopped() {
    return stoppedIn != null;
  }

  /** The verdict's name: {@code inconclusive} when stopped, {@code error} when it did not run. */
  public String verdict() {
    if (outcome == null) {
      return stopped() ? "inconclusive" : "error";
    }
    return outcome.result().verdict().json();
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
    if (stopped()) {
      String m = batchCase.expect().mismatch(verdict(), null);
      return m == null ? null : m + ": " + error;
    }
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
