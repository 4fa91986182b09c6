package dev.entangle.cli;

import dev.entangle.refine.Verdict;
import java.io.PrintWriter;

/** The human-readable report on stdout. */
final class TextReport {
  private TextReport() {}

  static void print(Report r, PrintWriter out) {
    out.println(r.verdict().json());
    if (r.verdict() == Verdict.REFINES) {
      out.println("output relation (G_s output: clean expression over G_d outputs):");
      for (Report.Entry e : r.outputRelation()) {
        out.println("  " + e.gs() + ": " + e.gd());
      }
    } else if (r.failure() != null) {
      Report.FailureText f = r.failure();
      out.println(
          switch (r.verdict()) {
            case EXPECTATION_VIOLATED -> "An expectation on the output relation does not hold:";
            case INCONCLUSIVE -> "A limit was reached while checking this G_s operator:";
            case UNSUPPORTED ->
                "The check needs an operator entangle does not support yet, in G_s or in G_d"
                    + " (neither a proof nor the numbers can say whether G_d computes this G_s"
                    + " operator):";
            case UNPROVED ->
                "No lemma proves this G_s operator, but on random inputs it equals a clean expression of"
                    + " G_d (a gap in the lemmas, not a bug on this evidence):";
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
      if (f.source() != null) {
        out.println("  line:     " + line(f.source()));
      }
      if (!f.gdLocations().isEmpty()) {
        out.println("  in G_d, nearest first (the distributed code where it diverges):");
        for (GdLocations.Location l : f.gdLocations()) {
          out.println(
              "    "
                  + line(l.frame())
                  + "   ("
                  + String.join(", ", l.tensors())
                  + ": "
                  + l.target()
                  + ")");
        }
      }
      out.println("  why:      " + f.reason());
      if (f.expected() != null) {
        out.println("  expected: " + f.expected());
      }
      Report.NumbersText n = f.numbers();
      if (n != null && n.summary() != null) {
        out.println("  numbers:  " + n.summary());
      }
      if (n != null && n.candidate() != null && n.lemmaSkeleton() != null) {
        out.println("  candidate: " + n.candidate().expr());
        out.println(
            "  a lemma to complete (save it in a folder of *.lemmas files and pass --lemmas FOLDER):");
        for (String line : n.lemmaSkeleton().split("\n")) {
          out.println("    " + line);
        }
      }
      if (!f.inputs().isEmpty()) {
        out.println("  its inputs, as related to G_d:");
        int w = f.inputs().stream().mapToInt(i -> i.name().length()).max().orElse(0);
        for (Report.Input i : f.inputs()) {
          out.printf("    %-" + w + "s = %s%n", i.name(), i.gdText());
        }
      }
      if (!f.explored().isEmpty()) {
        out.println(
            "  G_d tensors explored for it ("
                + f.explored().size()
                + "): "
                + String.join(", ", f.explored()));
      }
      if (!r.outputRelation().isEmpty()) {
        out.println(
            r.verdict() == Verdict.UNPROVED
                ? "output relation (it rests on the steps taken on numbers below):"
                : "output relation found so far:");
        for (Report.Entry e : r.outputRelation()) {
          out.println("  " + e.gs() + ": " + e.gd());
        }
      }
    }
    if (!r.assumed().isEmpty()) {
      out.println(
          "steps taken on numbers alone (no lemma proves them; each held on every random draw):");
      for (Report.Entry e : r.assumed()) {
        out.println("  " + e.gs() + ": " + e.gd());
      }
    }
    if (!r.notChecked().isEmpty()) {
      out.println(
          "not checked (no defined value: dropout masks, uninitialized buffers): "
              + String.join(", ", r.notChecked()));
    }
    out.println(checkedLine(r));
    out.flush();
  }

  /** {@code PATH:LINE code}. */
  private static String line(SourceFrames.Frame f) {
    return f.where() + (f.code() == null ? "" : "  " + f.code());
  }

  /** "checked N G_s operators against M G_d operators in S s": the last line of the report. */
  static String checkedLine(Report r) {
    return "checked "
        + r.stats().gsOperators()
        + " G_s operators against "
        + r.stats().gdOperators()
        + " G_d operators in "
        + Decimals.fixed(r.stats().seconds(), 2)
        + " s";
  }
}
