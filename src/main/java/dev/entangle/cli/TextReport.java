package dev.entangle.cli;

import dev.entangle.refine.CheckResult;
import dev.entangle.refine.Verdict;
import java.io.PrintWriter;

/** The human-readable report on stdout. */
final class TextReport {
  private TextReport() {}

  static void print(CheckResult r, PrintWriter out) {
    out.println(r.verdict().json());
    if (r.verdict() == Verdict.REFINES) {
      out.println("output relation (G_s output: clean expression over G_d outputs):");
      for (CheckResult.OutputEntry e : r.outputRelation()) {
        out.println("  " + e.gs() + ": " + e.gd());
      }
    } else if (r.failure() != null) {
      CheckResult.Failure f = r.failure();
      out.println(switch (r.verdict()) {
        case EXPECTATION_VIOLATED -> "An expectation on the output relation does not hold:";
        case INCONCLUSIVE -> "A limit was reached while checking this G_s operator:";
        default -> "The first G_s operator whose outputs could not be mapped to G_d:";
      });
      out.println("  operator: " + f.operator() + " (" + f.target() + ")");
      if (f.stackTrace() != null && !f.stackTrace().isBlank()) {
        String[] lines = f.stackTrace().strip().split("\n");
        out.println("  source:   " + lines[0].strip());
        for (int i = 1; i < lines.length; i++) {
          out.println("            " + lines[i].strip());
        }
      }
      out.println("  why:      " + f.reason());
      if (f.expected() != null) {
        out.println("  expected: " + f.expected());
      }
      if (!f.inputs().isEmpty()) {
        out.println("  its inputs, as related to G_d:");
        int w = f.inputs().stream().mapToInt(i -> i.name().length()).max().orElse(0);
        for (CheckResult.InputRelation i : f.inputs()) {
          String exprs = i.constant() ? "(a constant)" : i.gd().isEmpty() ? "(no relation)" : String.join("  |  ", i.gd());
          out.printf("    %-" + w + "s = %s%n", i.name(), exprs);
        }
      }
      if (!f.explored().isEmpty()) {
        out.println("  G_d tensors explored for it (" + f.explored().size() + "): " + String.join(", ", f.explored()));
      }
      if (!r.outputRelation().isEmpty()) {
        out.println("output relation found so far:");
        for (CheckResult.OutputEntry e : r.outputRelation()) {
          out.println("  " + e.gs() + ": " + e.gd());
        }
      }
    }
    if (!r.notChecked().isEmpty()) {
      out.println("not checked (no defined value: dropout masks, uninitialized buffers): "
          + String.join(", ", r.notChecked()));
    }
    CheckResult.Stats s = r.stats();
    out.printf("checked %d G_s operators against %d G_d operators in %.2f s%n", s.gsOperators(), s.gdOperators(), s.seconds());
    out.flush();
  }
}
