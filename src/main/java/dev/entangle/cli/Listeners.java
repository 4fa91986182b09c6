package dev.entangle.cli;

import dev.entangle.core.CoreOp;
import dev.entangle.core.CoreTerm;
import dev.entangle.egraph.RunReport;
import dev.entangle.refine.CheckListener;
import java.util.List;

/** Several listeners heard as one. */
record Listeners(List<CheckListener> all) implements CheckListener {
  static CheckListener of(CheckListener... listeners) {
    return new Listeners(List.of(listeners));
  }

  @Override
  public void operatorChecked(int index, int total, CoreOp op, OperatorSummary outcome) {
    all.forEach(l -> l.operatorChecked(index, total, op, outcome));
  }

  @Override
  public void saturated(CoreOp op, RunReport report, int nodes, int classes, int explored) {
    all.forEach(l -> l.saturated(op, report, nodes, classes, explored));
  }

  @Override
  public void learned(CoreOp op, List<CoreTerm> group) {
    all.forEach(l -> l.learned(op, group));
  }

  @Override
  public void saturationsReplayed(long replayed, long ran) {
    all.forEach(l -> l.saturationsReplayed(replayed, ran));
  }

  @Override
  public void finished() {
    all.forEach(CheckListener::finished);
  }
}
