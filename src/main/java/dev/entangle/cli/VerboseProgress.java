package dev.entangle.cli;

import dev.entangle.refine.ProgressListener;
import java.io.PrintWriter;

/** {@code --verbose}: one line per operator. */
final class VerboseProgress implements ProgressListener {
  private final PrintWriter err;

  VerboseProgress(PrintWriter err) {
    this.err = err;
  }

  @Override
  public void operatorDone(int index, int total, String operator, String detail) {
    if (index < 0) {
      return;
    }
    err.printf("[%d/%d] %s: %s%n", index + 1, total, operator, detail);
    err.flush();
  }
}
