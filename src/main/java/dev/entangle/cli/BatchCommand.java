package dev.entangle.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.entangle.batch.BatchCase;
import dev.entangle.batch.BatchRunner;
import dev.entangle.batch.CaseRun;
import dev.entangle.batch.Manifest;
import dev.entangle.batch.ManifestReader;
import dev.entangle.check.CheckSettings;
import dev.entangle.util.InputException;
import dev.entangle.util.OutputGuard;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code entangle batch MANIFEST}: every case of a manifest, checked against its expectation. */
@Command(
    name = "batch",
    mixinStandardHelpOptions = true,
    description =
        "Checks every case of a manifest (or of folders of cases) in one run (several at once where cores allow) and prints a"
            + " table in manifest order: case, expected, verdict, failing operator, seconds. Exits 0"
            + " when every case meets its expectation, 1 otherwise, 2 on a bad manifest.")
final class BatchCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Parameters(
      arity = "1..*",
      paramLabel = "MANIFEST|DIR",
      description =
          "a manifest (JSON), or folders of case folders (each with an expected.json, as"
              + " examples/ is)")
  List<Path> inputs;

  @Option(
      names = "--junit",
      paramLabel = "FILE",
      description = "write a JUnit XML report to FILE (a test case per case)")
  Path junit;

  @Option(
      names = "--json",
      paramLabel = "FILE",
      description = "write every case's report and whether it met its expectation, as JSON")
  Path json;

  @Option(
      names = "--sarif",
      paramLabel = "FILE",
      description = "write a SARIF 2.1.0 log of every failure found to FILE")
  Path sarif;

  /** The options {@code check} shares: limits, jobs, seed, numbers, lemmas, debug. */
  private RunOptions run;

  /** The {@code batch} command's model: its annotated options and the shared ones. */
  static CommandSpec spec() {
    BatchCommand command = new BatchCommand();
    CommandSpec spec = CommandSpec.forAnnotatedObject(command);
    command.run =
        new RunOptions(
            spec,
            "each case's time limit unless the manifest gives one",
            "most cases checked at once");
    return spec;
  }

  @Override
  public Integer call() {
    run.validate();
    OutputFiles.requireFolder(junit, json, sarif);
    Manifest m = manifest();
    OutputGuard.check(
        inputFiles(m),
        List.of(
            new OutputGuard.Named("--junit", junit),
            new OutputGuard.Named("--json", json),
            new OutputGuard.Named("--sarif", sarif)));
    LoadedLemmas loaded = LoadedLemmas.load(LemmaPaths.defaultDir(), run.lemmaDirs());
    String untested = loaded.user().untestedWarning();
    if (untested != null) {
      spec.commandLine().getErr().println("entangle: " + untested);
    }
    CheckSettings settings = run.settings();
    int threads = run.jobs();
    PrintWriter out = spec.commandLine().getOut();
    BatchTable table = new BatchTable(m, out);
    table.header();
    long start = System.nanoTime();
    List<CaseRun> runs =
        BatchRunner.run(
            m, loaded.lemmas(), loaded.user(), settings, threads, table::row, run.debug());
    double seconds = (System.nanoTime() - start) / 1e9;
    List<Report> reports = new ArrayList<>();
    for (CaseRun r : runs) {
      reports.add(
          r.outcome() == null
              ? null
              : Report.of(
                  r.outcome().result(), r.outcome().programs().gs(), r.outcome().programs().gd()));
    }
    table.summary(runs, seconds);
    if (junit != null) {
      JunitReport.write(junitSuite(m, runs, reports, seconds), junit);
    }
    if (json != null) {
      writeJson(m, runs, reports, seconds);
    }
    if (sarif != null) {
      writeSarif(runs, reports);
    }
    return runs.stream().allMatch(CaseRun::met) ? ExitCodes.REFINES : ExitCodes.NOT_REFINED;
  }

  /** Every file the batch reads: the manifest, every case's files and the lemma files. */
  private List<Path> inputFiles(Manifest m) {
    List<Path> in = new ArrayList<>(inputs);
    for (BatchCase c : m.cases()) {
      in.addAll(c.gs().files());
      in.addAll(c.gd().files());
      in.add(c.relation());
    }
    for (Path dir : run.lemmaDirs()) {
      in.addAll(OutputGuard.filesIn(dir, ""));
    }
    in.addAll(OutputGuard.filesIn(LemmaPaths.defaultDir(), ""));
    return in;
  }

  /** The manifest file, or the manifest of the folders of cases. */
  private Manifest manifest() {
    boolean folders = inputs.stream().allMatch(Files::isDirectory);
    if (folders) {
      return ManifestReader.ofFolders(inputs);
    }
    if (inputs.size() > 1) {
      throw new InputException(
          "give one manifest file, or one or more folders of case folders, not "
              + String.join(" ", inputs.stream().map(Path::toString).toList())
              + ".");
    }
    return ManifestReader.read(inputs.get(0));
  }

  private JunitReport.Suite junitSuite(
      Manifest m, List<CaseRun> runs, List<Report> reports, double seconds) {
    List<JunitReport.TestCase> cases = new ArrayList<>();
    for (int i = 0; i < runs.size(); i++) {
      CaseRun r = runs.get(i);
      cases.add(
          r.stopped()
              ? stoppedCase("entangle." + m.name(), r)
              : JunitReport.forBatchCase(
                  "entangle." + m.name(),
                  r.batchCase().name(),
                  r.batchCase().expect().verdictText(),
                  reports.get(i),
                  r.error(),
                  r.mismatch(),
                  r.seconds()));
    }
    Map<String, String> props = new LinkedHashMap<>();
    props.put("manifest", m.file().toString());
    props.put("cases", String.valueOf(runs.size()));
    props.put("entangle", new Version().getVersion()[0]);
    return new JunitReport.Suite("entangle batch " + m.name(), seconds, props, cases);
  }

  /** A case its limit stopped before its check could report: an error of type inconclusive. */
  private static JunitReport.TestCase stoppedCase(String classname, CaseRun r) {
    String text = "expected: " + r.batchCase().expect().verdictText() + "\n" + r.error();
    JunitReport.Outcome o =
        r.met()
            ? new JunitReport.Outcome.Passed()
            : new JunitReport.Outcome.Errored("inconclusive", r.mismatch(), text);
    return new JunitReport.TestCase(
        classname, r.batchCase().name(), r.seconds(), null, o, r.met() ? text : null);
  }

  private void writeJson(Manifest m, List<CaseRun> runs, List<Report> reports, double seconds) {
    ObjectNode root = JsonNodeFactory.instance.objectNode();
    root.put("manifest", m.file().toString());
    root.put("name", m.name());
    ArrayNode cases = root.putArray("cases");
    int met = 0;
    for (int i = 0; i < runs.size(); i++) {
      CaseRun r = runs.get(i);
      BatchCase c = r.batchCase();
      ObjectNode o = cases.addObject();
      o.put("name", c.name());
      ArrayNode expected = o.putArray("expected");
      c.expect().verdicts().forEach(expected::add);
      if (c.expect().operator() != null) {
        o.put("expected_operator", c.expect().operator());
      }
      o.put("verdict", r.verdict());
      if (r.failingOperator() != null) {
        o.put("operator", r.failingOperator());
      }
      o.put("met", r.met());
      if (r.mismatch() != null) {
        o.put("mismatch", r.mismatch());
      }
      o.put("seconds", Math.round(r.seconds() * 1000) / 1000.0);
      if (r.stopped()) {
        o.put("stopped_in", r.stoppedIn());
        o.put("reason", r.error());
      } else if (r.error() != null) {
        o.put("error", r.error());
      }
      if (reports.get(i) != null) {
        o.set("report", JsonReport.toJson(reports.get(i)));
      }
      met += r.met() ? 1 : 0;
    }
    ObjectNode summary = root.putObject("summary");
    summary.put("cases", runs.size());
    summary.put("met", met);
    summary.put("not_met", runs.size() - met);
    summary.put("seconds", Math.round(seconds * 1000) / 1000.0);
    OutputFiles.writeJson(root, json);
  }

  private void writeSarif(List<CaseRun> runs, List<Report> reports) {
    List<SarifReport.Checked> checked = new ArrayList<>();
    List<SarifReport.NotRun> notRun = new ArrayList<>();
    for (int i = 0; i < runs.size(); i++) {
      CaseRun r = runs.get(i);
      BatchCase c = r.batchCase();
      if (reports.get(i) == null) {
        notRun.add(
            new SarifReport.NotRun(c.name(), (r.stopped() ? "inconclusive: " : "") + r.error()));
      } else {
        checked.add(
            new SarifReport.Checked(
                new CaseLabel(
                    c.name(),
                    files(c.gs().files()),
                    files(c.gd().files()),
                    c.relation().toString()),
                reports.get(i)));
      }
    }
    SarifReport.write(checked, notRun, sarif);
  }

  private static String files(List<Path> files) {
    return String.join(", ", files.stream().map(Path::toString).toList());
  }

  /** The table on stdout: a row per case in manifest order, then a summary line. */
  private static final class BatchTable {
    private final PrintWriter out;
    private final String format;

    BatchTable(Manifest m, PrintWriter out) {
      this.out = out;
      int name = 4;
      int expected = 8;
      int operator = 14;
      for (BatchCase c : m.cases()) {
        name = Math.max(name, c.name().length());
        expected = Math.max(expected, expected(c).length());
        if (c.expect().operator() != null) {
          operator = Math.max(operator, c.expect().operator().length());
        }
      }
      this.format = "%-" + name + "s  %-" + expected + "s  %-20s  %-" + operator + "s  %8s%s%n";
    }

    void header() {
      out.printf(format, "case", "expected", "verdict", "operator", "seconds", "");
      out.flush();
    }

    void row(CaseRun r) {
      String op = r.failingOperator();
      String mismatch = r.mismatch();
      out.printf(
          format,
          r.batchCase().name(),
          expected(r.batchCase()),
          r.verdict(),
          op == null ? "-" : op,
          Decimals.fixed(r.seconds(), 2),
          mismatch == null
              ? ""
              : "  <-- "
                  + (r.error() == null ? mismatch : r.stopped() ? "stopped" : "did not run"));
      if (r.error() != null) {
        out.println("    " + r.error());
      }
      out.flush();
    }

    private static String expected(BatchCase c) {
      return c.expect().verdictText()
          + (c.expect().operator() == null ? "" : " at " + c.expect().operator());
    }

    void summary(List<CaseRun> runs, double seconds) {
      List<String> unmet =
          runs.stream().filter(r -> !r.met()).map(r -> r.batchCase().name()).toList();
      out.printf(
          Locale.ROOT,
          "%d cases, %d met their expectation%s in %.2f s%n",
          runs.size(),
          runs.size() - unmet.size(),
          unmet.isEmpty() ? "" : ", " + unmet.size() + " did not: " + String.join(", ", unmet),
          seconds);
      out.flush();
    }
  }
}
