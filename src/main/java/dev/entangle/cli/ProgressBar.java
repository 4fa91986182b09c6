package dev.entangle.cli;

import dev.entangle.core.CoreOp;
import dev.entangle.refine.CheckListener;
import java.io.PrintWriter;

/**
 * A one-line progress bar on stderr, shown only on a terminal and only once a run lasts over a
 * second.
 */
final class ProgressBar implements CheckListener {
  private final PrintWriter err;
  private final long start = System.nanoTime();
  private boolean shown;

  private ProgressBar(PrintWriter err) {
    this.err = err;
  }

  static CheckListener forTerminal(PrintWriter err) {
    return System.console() != null && System.getenv("CI") == null
        ? new ProgressBar(err)
        : CheckListener.NONE;
  }

  @Override
  public void operatorChecked(int index, int total, CoreOp op, OperatorSummary outcome) {
    if (System.nanoTime() - start < 1_000_000_000L) {
      return;
    }
    shown = true;
    int width = 30;
    int done = total == 0 ? width : (index + 1) * width / total;
    String name = op.name().length() > 30 ? op.name().substring(0, 27) + "..." : op.name();
    err.printf(
        "\r[%s%s] %d/%d %-30s", "#".repeat(done), " ".repeat(width - done), index + 1, total, name);
    err.flush();
  }

  @Override
  public void finished() {
    if (shown) {
      err.print("\r" + " ".repeat(78) + "\r");
      err.flush();
    }
  }
}
