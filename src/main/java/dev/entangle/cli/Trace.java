package dev.entangle.cli;

import dev.entangle.core.CoreOp;
import dev.entangle.core.CoreTerm;
import dev.entangle.egraph.RunReport;
import dev.entangle.lower.TermText;
import dev.entangle.refine.CheckListener;
import java.io.PrintWriter;
import java.util.List;

/**
 * {@code ENTANGLE_TRACE=1}: for lemma authors, every saturation's outcome (why it stopped, which
 * lemmas fired), every G_d equality learned and, at the end, how many saturations were replayed
 * (which with {@code --jobs} above 1 depends on timing), on stderr.
 */
final class Trace implements CheckListener {
  private final PrintWriter err;
  private final TermText text;

  Trace(PrintWriter err, TermText text) {
    this.err = err;
    this.text = text;
  }

  static boolean enabled() {
    return System.getenv("ENTANGLE_TRACE") != null;
  }

  @Override
  public void saturated(CoreOp op, RunReport report, int nodes, int classes, int explored) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < report.names().size(); i++) {
      if (report.applied(i) > 0) {
        sb.append(' ').append(report.names().get(i)).append('=').append(report.applied(i));
      }
    }
    err.printf(
        "  [%s] %s after %d iterations, %d nodes, %d classes, %d explored:%s%n",
        op == null ? "-" : op.name(),
        report.stopReason().name(),
        report.iterations(),
        nodes,
        classes,
        explored,
        sb);
    err.flush();
  }

  @Override
  public void learned(CoreOp op, List<CoreTerm> group) {
    StringBuilder sb = new StringBuilder();
    for (CoreTerm e : group) {
      sb.append("  ").append(text.relation(e));
    }
    err.println("  [" + op.name() + "] learned:" + sb);
    err.flush();
  }

  @Override
  public void saturationsReplayed(long replayed, long ran) {
    err.printf(
        "  %d of %d saturations replayed from operators whose e-graphs were built alike%n",
        replayed, replayed + ran);
    err.flush();
  }
}
