package dev.entangle.cli;

import java.io.PrintWriter;
import java.util.Arrays;

/**
 * A run that exhausted the heap or a thread's stack: one paragraph saying so and what to do, exit
 * 2, never a trace (unless {@code --debug}).
 */
final class ResourceErrors {
  private ResourceErrors() {}

  static int report(OutOfMemoryError e, PrintWriter err, String[] args) {
    err.println(
        "entangle: out of memory: the inputs are too large for the Java heap of this run"
            + " (at most "
            + Runtime.getRuntime().maxMemory() / (1 << 20)
            + " MB); give a smaller input, or more heap with JAVA_OPTS=-Xmx8g (for example).");
    return trace(e, err, args);
  }

  static int report(StackOverflowError e, PrintWriter err, String[] args) {
    err.println(
        "entangle: an input is nested too deeply to process (a term, expression or graph chain"
            + " deeper than the stack allows); flatten it, or give more stack with"
            + " JAVA_OPTS=-Xss64m.");
    return trace(e, err, args);
  }

  private static int trace(Error e, PrintWriter err, String[] args) {
    if (Arrays.asList(args).contains("--debug")) {
      e.printStackTrace(err);
    }
    err.flush();
    return ExitCodes.INPUT_ERROR;
  }
}
