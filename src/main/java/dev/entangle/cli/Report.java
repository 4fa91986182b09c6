package dev.entangle.cli;

import dev.entangle.lower.CoreOp;
import dev.entangle.lower.CoreProgram;
import dev.entangle.lower.CoreTerm;
import dev.entangle.lower.TermText;
import dev.entangle.refine.CheckResult;
import dev.entangle.refine.Failure;
import dev.entangle.refine.Verdict;
import java.util.ArrayList;
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
   */
  record FailureText(
      String operator,
      String target,
      String stackTrace,
      String reason,
      String expected,
      List<Input> inputs,
      List<String> explored) {}

  /** An operator input and what it was related to ({@code (a constant)} for a constant). */
  record Input(String name, List<String> gd) {}

  static Report of(CheckResult r, CoreProgram gs, CoreProgram gd) {
    TermText text = new TermText(gd);
    List<Entry> rel = new ArrayList<>();
    for (CheckResult.OutputEntry e : r.outputRelation()) {
      rel.add(new Entry(gs.value(e.gs()).name(), text.relation(e.gd())));
    }
    List<String> notChecked = r.notChecked().stream().map(v -> gs.value(v).name()).toList();
    FailureText f = r.failure() == null ? null : new Prose(gs, gd, text).failure(r.failure());
    return new Report(r.verdict(), rel, notChecked, f, r.stats());
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
        name = gs.value(((Failure.OutputNotReturned) f).output()).name();
        target = name;
        trace = null;
      }
      String expected = f instanceof Failure.ExpectationViolated e ? e.expect().text() : null;
      List<Input> inputs = new ArrayList<>();
      for (Failure.InputRelation i : f.inputs()) {
        List<String> exprs = new ArrayList<>();
        i.gd().forEach(t -> exprs.add(text.relation(t)));
        if (exprs.isEmpty() && i.constant()) {
          exprs.add("(a constant)");
        }
        inputs.add(new Input(gs.value(i.value()).name(), exprs));
      }
      List<String> explored = f.explored().stream().map(v -> gd.value(v).label()).toList();
      return new FailureText(name, target, trace, reason(f), expected, inputs, explored);
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

    private String noClean(Failure.NoCleanExpression n) {
      StringBuilder sb = new StringBuilder();
      sb.append(
          "no clean expression (concat, slice, transpose, reshape, sums across ranks) of G_d tensors equals ");
      sb.append(n.outputs() == 1 ? "its output" : "its outputs");
      if (n.limit() != null) {
        sb.append(
            " within the limits (the e-graph or time limit was reached first; try --timeout or --node-limit)");
      }
      sb.append('.');
      for (Failure.OutputTerm t : n.terms()) {
        sb.append(" In terms of G_d tensors, ")
            .append(name(t.output()))
            .append(" = ")
            .append(text.describe(t.gd()))
            .append(", which G_d never computes.");
      }
      return sb + chainNote(n.chainEnd());
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

    private String describe(CoreTerm t) {
      return t == null ? "nothing" : text.relation(t);
    }

    private String name(int gsValue) {
      return gs.value(gsValue).name();
    }
  }
}
