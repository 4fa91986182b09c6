package dev.entangle.cli;

import dev.entangle.refine.ProgressListener;
import java.io.PrintWriter;

/** A one-line progress bar on stderr, shown only on a terminal and only once a run lasts over a second. */
final class ProgressBar implements ProgressListener {
  private final PrintWriter err;
  private final long start = System.nanoTime();
  private boolean shown;

  private ProgressBar(PrintWriter err) {
    this.err = err;
  }

  static ProgressListener forTerminal(PrintWriter err) {
    return System.console() != null && System.getenv("CI") == null ? new ProgressBar(err) : ProgressListener.NONE;
  }

  @Override
  public void operatorDone(int index, int total, String operator, String detail) {
    if (index < 0) {
      if (shown) {
        err.print("\r" + " ".repeat(78) + "\r");
        err.flush();
      }
      return;
    }
    if (System.nanoTime() - start < 1_000_000_000L) {
      return;
    }
    shown = true;
    int width = 30;
    int done = total == 0 ? width : (index + 1) * width / total;
    String name = operator.length() > 30 ? operator.substring(0, 27) + "..." : operator;
    err.printf("\r[%s%s] %d/%d %-30s", "#".repeat(done), " ".repeat(width - done), index + 1, total, name);
    err.flush();
  }
}
