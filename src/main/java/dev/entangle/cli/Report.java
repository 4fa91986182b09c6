package dev.entangle.cli;

import dev.entangle.core.CoreOp;
import dev.entangle.core.CoreProgram;
import dev.entangle.core.CoreTerm;
import dev.entangle.egraph.StopReason;
import dev.entangle.lower.TermText;
import dev.entangle.refine.Assumption;
import dev.entangle.refine.CheckResult;
import dev.entangle.refine.Evidence;
import dev.entangle.refine.Failure;
import dev.entangle.refine.Verdict;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A check's result in the words reports use: names instead of ids, relation syntax instead of
 * terms, and the failure explained in one paragraph. Every report (text, JSON) renders this.
 */
record Report(
    Verdict verdict,
    List<Entry> outputRelation,
    List<String> notChecked,
    FailureText failure,
    List<Entry> assumed,
    CheckResult.Stats stats) {

  /** One pair of the output relation. */
  record Entry(String gs, String gd) {}

  /**
   * Where the check stopped, in words.
   *
   * @param operator the G_s node name
   * @param target its operator
   * @param stackTrace its source location, when known
   * @param reason one paragraph saying what could not be shown
   * @param expected for an expectation failure: the expected G_d expression
   * @param inputs each input of the operator with the G_d expressions it was related to
   * @param explored the G_d tensors brought in for the operator
   * @param numbers what the numbers say, or null when they were not asked
   * @param source the line of the sequential model it points at ({@link ModelFrames}), or null
   * @param gdLocations the lines of the distributed code where G_d diverges, nearest first
   */
  record FailureText(
      String operator,
      String target,
      String stackTrace,
      String reason,
      String expected,
      List<Input> inputs,
      List<String> explored,
      NumbersText numbers,
      SourceFrames.Frame source,
      List<GdLocations.Location> gdLocations) {

    /** The distributed code's line nearest the failure, or null when G_d records no source. */
    SourceFrames.Frame gdSource() {
      return gdLocations.isEmpty() ? null : gdLocations.get(0).frame();
    }

    /** Where a CI annotation goes: the distributed code's line, else the sequential model's. */
    SourceFrames.Frame annotated() {
      SourceFrames.Frame gd = gdSource();
      return gd != null ? gd : source;
    }
  }

  /**
   * The numbers behind a failure.
   *
   * @param summary one paragraph for people
   * @param witness the numbers that show a bug, or null
   * @param candidate the clean expression that held on every draw, or null
   * @param lemmaSkeleton a lemma to complete for the step no lemma proves, or null
   * @param notRun why the numbers could not say, or null
   */
  record NumbersText(
      String summary,
      WitnessText witness,
      CandidateText candidate,
      String lemmaSkeleton,
      String notRun) {}

  /** A witness: where the closest clean expression of G_d differs from the G_s value. */
  record WitnessText(
      long seed,
      long[] shape,
      String closest,
      long[] index,
      double gs,
      double gd,
      double maxAbs,
      double maxRelative,
      long differing,
      String note) {}

  /** A candidate: the clean expression and on how many draws it held. */
  record CandidateText(String expr, int draws, long seed) {}

  /**
   * An operator input and what it was related to; a constant is carried as its own term, so it is
   * related to nothing.
   */
  record Input(String name, List<String> gd, boolean constant) {

    /** The related expressions in one line, or why there are none. */
    String gdText() {
      if (!gd.isEmpty()) {
        return String.join("  |  ", gd);
      }
      return constant ? "(a constant)" : "(no relation)";
    }
  }

  static Report of(CheckResult r, CoreProgram gs, CoreProgram gd) {
    TermText text = new TermText(gd);
    List<Entry> rel = new ArrayList<>();
    for (CheckResult.OutputEntry e : r.outputRelation()) {
      rel.add(new Entry(gs.value(e.gs()).name(), text.relation(e.gd())));
    }
    List<String> notChecked = r.notChecked().stream().map(v -> gs.value(v).name()).toList();
    FailureText f = r.failure() == null ? null : new Prose(gs, gd, text).failure(r.failure());
    List<Entry> assumed = new ArrayList<>();
    for (Assumption a : r.assumptions()) {
      assumed.add(new Entry(gs.value(a.output()).name(), text.relation(a.candidate().term())));
    }
    return new Report(r.verdict(), rel, notChecked, f, assumed, r.stats());
  }

  /** Writes failures as prose. */
  private record Prose(CoreProgram gs, CoreProgram gd, TermText text) {
    FailureText failure(Failure f) {
      String name;
      String target;
      String trace;
      if (f.operator() >= 0) {
        CoreOp op = gs.op(f.operator());
        name = op.name();
        target = op.target();
        trace = op.stackTrace();
      } else {
        int output =
            f instanceof Failure.OutputNotReturned o
                ? o.output()
                : ((Failure.ProvedOnNumbers) f).assumption().output();
        name = gs.value(output).name();
        target = name;
        trace = null;
      }
      String expected = f instanceof Failure.ExpectationViolated e ? e.expect().text() : null;
      List<Input> inputs = new ArrayList<>();
      for (Failure.InputRelation i : f.inputs()) {
        List<String> exprs = new ArrayList<>();
        i.gd().forEach(t -> exprs.add(text.relation(t)));
        inputs.add(new Input(gs.value(i.value()).name(), exprs, exprs.isEmpty() && i.constant()));
      }
      List<String> explored = f.explored().stream().map(v -> gd.value(v).label()).toList();
      return new FailureText(
          name,
          target,
          trace,
          reason(f),
          expected,
          inputs,
          explored,
          numbers(f),
          ModelFrames.of(gs, gd).pick(trace),
          GdLocations.of(f, gs, gd));
    }

    /** The numbers of a failure in words, or null when none were asked. */
    private NumbersText numbers(Failure f) {
      if (f instanceof Failure.ProvedOnNumbers p) {
        Assumption a = p.assumption();
        Evidence.Candidate c = a.candidate();
        String expr = text.relation(c.term());
        String skeleton = LemmaSkeleton.of(name(a.output()), a.gdTerm(), c.term(), gd);
        return new NumbersText(
            null, null, new CandidateText(expr, c.draws(), c.seed()), skeleton, null);
      }
      Evidence e = f.evidence();
      if (e == null) {
        return null;
      }
      if (e instanceof Evidence.NotRun n) {
        String why = "not run: " + n.reason() + ".";
        if (f instanceof Failure.NoCleanExpression || f instanceof Failure.OutputNotReturned) {
          why +=
              " So nothing here shows a bug: only that no proof was found for "
                  + (f.operator() >= 0 ? gs.op(f.operator()).name() : "this output")
                  + ".";
        }
        return new NumbersText(why, null, null, null, n.reason());
      }
      if (e instanceof Evidence.Candidate c) {
        String expr = text.relation(c.term());
        return new NumbersText(
            name(c.gsValue())
                + " equals "
                + expr
                + " on "
                + c.draws()
                + " random draws (seed "
                + c.seed()
                + ").",
            null,
            new CandidateText(expr, c.draws(), c.seed()),
            null,
            null);
      }
      Evidence.Witness w = (Evidence.Witness) e;
      String closest = w.closest() == null ? null : text.relation(w.closest());
      StringBuilder sb = new StringBuilder("on random inputs (seed ").append(w.seed()).append(") ");
      boolean expected = f instanceof Failure.ExpectationViolated;
      if (expected) {
        sb.append(name(w.gsValue())).append(' ').append(Arrays.toString(w.shape()));
      } else if (w.tried() == 1 && closest != null) {
        sb.append("the clean expression ")
            .append(closest)
            .append(" does not equal ")
            .append(name(w.gsValue()))
            .append(' ')
            .append(Arrays.toString(w.shape()));
      } else {
        sb.append("none of the ")
            .append(w.tried())
            .append(" clean forms tried (G_d ")
            .append(f instanceof Failure.OutputNotReturned ? "outputs and inputs" : "tensors")
            .append(" and, across ranks, their concatenations, sums, maxima and minima, each")
            .append(" permuted or reshaped) equals ")
            .append(name(w.gsValue()))
            .append(' ')
            .append(Arrays.toString(w.shape()));
      }
      if (closest == null) {
        sb.append("; no G_d tensor, or combination of one across ranks, has its size and dtype.");
      } else {
        sb.append(expected ? " differs from the expected " : "; the closest, ")
            .append(closest)
            .append(expected ? " at " : ", differs at ")
            .append(Arrays.toString(w.index()))
            .append(": G_s has ")
            .append(num(w.gs()))
            .append(", the expression ")
            .append(num(w.gd()))
            .append(" (largest difference ")
            .append(num(w.maxAbs()))
            .append(", relative ")
            .append(num(w.maxRelative()))
            .append("; ")
            .append(w.differing())
            .append(" element(s) differ).");
      }
      if (w.note() != null) {
        sb.append(" The search stopped early: ").append(w.note()).append('.');
      }
      WitnessText wt =
          new WitnessText(
              w.seed(),
              w.shape(),
              closest,
              w.index(),
              w.gs(),
              w.gd(),
              w.maxAbs(),
              w.maxRelative(),
              w.differing(),
              w.note());
      return new NumbersText(sb.toString(), wt, null, null, null);
    }

    private String reason(Failure f) {
      if (f instanceof Failure.MissingInput m) {
        return (m.undefined()
                ? "its input '"
                    + name(m.input())
                    + "' has no defined value (a dropout mask or an uninitialized "
                    + "buffer), so nothing computed from it can be related to G_d."
                : "its input '"
                    + name(m.input())
                    + "' is related to no G_d tensor; add it to the relation file "
                    + "(a graph input) or check why it is not computed.")
            + chainNote(m.chainEnd());
      }
      if (f instanceof Failure.NoCleanExpression n) {
        return noClean(n);
      }
      if (f instanceof Failure.Unsupported u) {
        return unsupported(u);
      }
      if (f instanceof Failure.ProvedOnNumbers p) {
        Assumption a = p.assumption();
        Evidence.Candidate c = a.candidate();
        return "no lemma proves it, but on "
            + c.draws()
            + " random draws of the inputs (seed "
            + c.seed()
            + ") G_s's "
            + name(a.output())
            + " numerically equals "
            + text.relation(c.term())
            + ": a gap in the lemmas, not, on this evidence, a bug in the model."
            + (a.gdTerm() == null
                ? ""
                : " In terms of G_d tensors, the proof reached "
                    + name(a.output())
                    + " = "
                    + text.describe(a.gdTerm())
                    + ".")
            + unstated(p.unstated());
      }
      if (f instanceof Failure.OutputNotReturned o) {
        return "G_s output '"
            + name(o.output())
            + "' equals "
            + describe(o.equals())
            + " in terms of G_d tensors, but no clean expression over G_d's outputs (and inputs) equals it: G_d "
            + "does not return what is needed to rebuild it (a missing collective, or an output G_d does not return?).";
      }
      Failure.ExpectationViolated e = (Failure.ExpectationViolated) f;
      return "the output relation exists, but the expectation "
          + name(e.expect().gs())
          + " = "
          + e.expect().text()
          + " could not be proved: "
          + name(e.expect().gs())
          + " equals "
          + describe(e.equals())
          + ".";
    }

    /**
     * What the relation leaves unsaid that a proof may need: the ranges of the ids the numbers drew
     * within what they index.
     */
    private static String unstated(List<Failure.DrawnRange> ranges) {
      StringBuilder sb = new StringBuilder();
      for (Failure.DrawnRange r : ranges) {
        String bounds = "[" + r.lo() + ", " + r.hi();
        sb.append(" The relation states no range for the ids of G_s input '")
            .append(r.input())
            .append("'; the numbers drew them in ")
            .append(bounds)
            .append("), what they index. A proof of a wrapped, clamped or masked lookup may rest")
            .append(" on such a range: if every id lies there, add \"in_range\": ")
            .append(bounds)
            .append("] to its relations entry.");
      }
      return sb.toString();
    }

    private String noClean(Failure.NoCleanExpression n) {
      StringBuilder sb = new StringBuilder();
      sb.append(
              "the proof found no clean expression (concat, slice, transpose, reshape, sums across")
          .append(" ranks) of the ")
          .append(n.explored().size())
          .append(n.explored().size() >= 60 ? " or more" : "")
          .append(" G_d tensors it explored equal to ");
      sb.append(n.outputs() == 1 ? "its output" : "its outputs");
      if (n.limit() instanceof StopReason.TimeLimit) {
        sb.append(" before the check ran out of time (try a larger --timeout)");
      } else if (n.limit() != null) {
        sb.append(
            " within the limits (the e-graph or time limit was reached first; try --timeout or --node-limit)");
      }
      sb.append('.');
      for (Failure.OutputTerm t : n.terms()) {
        sb.append(" In terms of G_d tensors, ")
            .append(name(t.output()))
            .append(" = ")
            .append(text.describe(t.gd()))
            .append(
                n.limit() == null
                    ? ", which no G_d tensor the proof reached computes."
                    : ", as far as the search went before it stopped.");
      }
      return sb + chainNote(n.chainEnd());
    }

    private String unsupported(Failure.Unsupported u) {
      if (u.gdValue() != null) {
        return "G_d computes "
            + u.gdValue()
            + " through "
            + u.opaque()
            + ", which entangle can neither lower nor evaluate: it is kept opaque, so no proof"
            + " sees through it and the numbers cannot compute what G_d computes from it. None of"
            + " the G_d values the numbers did compute equals "
            + gs.op(u.stoppedAt()).name()
            + "'s output, but one computed through "
            + u.opaque()
            + " may, so this is not reported as a bug. To check this model, give the operator's"
            + " law as a lemma (a *.lemmas file in a folder passed with --lemmas FOLDER; README,"
            + " Writing a lemma) or file an issue asking for "
            + u.opaque()
            + " to be supported.";
      }
      CoreOp user = gs.op(u.operator());
      StringBuilder sb =
          new StringBuilder("entangle can neither lower nor evaluate ")
              .append(u.opaque())
              .append(": it is kept opaque, so it maps only where G_d makes the same call on")
              .append(" related operands");
      if (u.stoppedAt() == u.operator()) {
        sb.append(", and G_d does not");
      } else {
        CoreOp at = gs.op(u.stoppedAt());
        sb.append(". The proof stopped at ")
            .append(at.name())
            .append(" (")
            .append(at.target())
            .append("), which depends on its result ")
            .append(user.name());
      }
      return sb.append(
              ". Neither a proof nor the numbers can say whether G_d computes it, so this is not"
                  + " reported as a bug. To check this model, give the operator's law as a lemma"
                  + " (a *.lemmas file in a folder passed with --lemmas FOLDER; README, Writing a"
                  + " lemma) or file an issue asking for ")
          .append(u.opaque())
          .append(" to be supported.")
          .toString();
    }

    private String chainNote(int chainEnd) {
      if (chainEnd < 0) {
        return "";
      }
      CoreOp last = gs.op(chainEnd);
      return " The operators after it that use its result could not be mapped either, up to "
          + last.name()
          + " ("
          + last.target()
          + ").";
    }

    /** A number for people: four significant digits. */
    private static String num(double v) {
      return String.format("%.4g", v);
    }

    private String describe(CoreTerm t) {
      return t == null ? "nothing" : text.relation(t);
    }

    private String name(int gsValue) {
      return gs.value(gsValue).name();
    }
  }
}
