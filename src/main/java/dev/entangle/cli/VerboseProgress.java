package dev.entangle.cli;

import dev.entangle.core.CoreOp;
import dev.entangle.core.CoreProgram;
import dev.entangle.lower.TermText;
import dev.entangle.refine.CheckListener;
import java.io.PrintWriter;

/**
 * {@code --verbose}: one line per operator: its target, e-graph size, exploration, time and first
 * mapping.
 */
final class VerboseProgress implements CheckListener {
  private final PrintWriter err;
  private final CoreProgram gs;
  private final TermText text;

  VerboseProgress(PrintWriter err, CoreProgram gs, TermText text) {
    this.err = err;
    this.gs = gs;
    this.text = text;
  }

  @Override
  public void operatorChecked(int index, int total, CoreOp op, OperatorSummary o) {
    String effort =
        String.format(
            "%d e-nodes, %d G_d values explored (%.0f ms)", o.nodes(), o.explored(), o.millis());
    String detail =
        o.mapped()
            ? effort
                + (o.firstTerm() == null
                    ? ""
                    : "; "
                        + gs.value(o.firstOutput()).name()
                        + " = "
                        + text.relation(o.firstTerm()))
            : "no clean expression found; " + effort;
    err.printf("[%d/%d] %s: %s%n", index + 1, total, op.name(), op.target() + ": " + detail);
    err.flush();
  }
}
