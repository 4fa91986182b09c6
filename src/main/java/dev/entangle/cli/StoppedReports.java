package dev.entangle.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.entangle.refine.CheckResult;
import dev.entangle.refine.Verdict;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The report files of a check its time limit stopped before it could report ({@code --timeout}
 * while reading, lowering or checking): each file asked for says {@code inconclusive} and names the
 * phase, written whole (a temporary file, then renamed) or not at all.
 *
 * @param label the case
 * @param phase what the check was doing when stopped ({@code lowering the graphs})
 * @param reason the paragraph the text report prints
 * @param seconds how long the check ran
 */
record StoppedReports(CaseLabel label, String phase, String reason, double seconds) {

  /** Writes each file that is not null. */
  void write(Path json, Path junit, Path sarif, Path html) {
    if (json != null) {
      OutputFiles.writeReport(json(), json);
    }
    if (junit != null) {
      JunitReport.write(junit(), junit);
    }
    if (sarif != null) {
      SarifReport.write(
          List.of(),
          List.of(
              new SarifReport.NotRun(label.name(), Verdict.INCONCLUSIVE.json() + ": " + reason)),
          sarif);
    }
    if (html != null) {
      HtmlReport.writeStopped(this, html);
    }
  }

  /** The report of a run without a verdict's details: no relation, no failure, no statistics. */
  Report report() {
    return new Report(
        Verdict.INCONCLUSIVE,
        List.of(),
        List.of(),
        null,
        List.of(),
        new CheckResult.Stats(0, 0, seconds, Map.of()));
  }

  /**
   * The JSON report, with {@code stopped_in} (the phase) and {@code reason}; its {@code stats} has
   * the time only.
   */
  ObjectNode json() {
    ObjectNode o = JsonReport.toJson(report());
    // how many operators there are was not reported before the stop: only the time is known
    ((ObjectNode) o.get("stats")).remove(List.of("gs_operators", "gd_operators"));
    o.put("stopped_in", phase);
    o.put("reason", reason);
    return o;
  }

  /** One suite with one test case, an error of type {@code inconclusive}. */
  JunitReport.Suite junit() {
    Map<String, String> props = new LinkedHashMap<>();
    props.put("verdict", Verdict.INCONCLUSIVE.json());
    props.put("stopped_in", phase);
    props.put("gs", label.gs());
    props.put("gd", label.gd());
    props.put("relation", label.relation());
    props.put("entangle", new Version().getVersion()[0]);
    return new JunitReport.Suite(
        "entangle check " + label.name(),
        seconds,
        props,
        List.of(
            new JunitReport.TestCase(
                "entangle." + label.name(),
                "check (stopped while " + phase + ")",
                seconds,
                null,
                new JunitReport.Outcome.Errored(Verdict.INCONCLUSIVE.json(), reason, reason),
                null)));
  }
}
