package dev.entangle.cli;

import dev.entangle.check.CheckInputs;
import dev.entangle.check.CheckPipeline;
import dev.entangle.check.CheckSettings;
import dev.entangle.check.Programs;
import dev.entangle.core.CoreProgram;
import dev.entangle.egraph.AnalysisConflict;
import dev.entangle.lower.ProgramDump;
import dev.entangle.lower.TermText;
import dev.entangle.refine.CheckListener;
import dev.entangle.refine.CheckResult;
import dev.entangle.refine.Numbers;
import dev.entangle.refine.Verdict;
import dev.entangle.rules.Lemmas;
import dev.entangle.util.InputException;
import dev.entangle.util.OutputGuard;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * {@code entangle check GS GD --rel RI}: the refinement check. Its options are built in code
 * ({@link CodedOptions}), not read from annotations: this is the command every CI run starts.
 */
final class CheckCommand implements Callable<Integer> {
  /** Independent random draws a numeric candidate must hold on. */
  static final int DRAWS = CheckSettings.DRAWS;

  static final String DESCRIPTION =
      "Checks that G_d refines G_s under the input relation. Prints the verdict, then the output "
          + "relation (one line per G_s output) or where the check failed.";

  /** The command's model; each option below adds itself as it is made. */
  private final CommandSpec spec = CommandSpec.wrapWithoutInspection(this);

  private final PositionalParamSpec gs =
      positional(
          CodedOptions.positional(
              0, Path.class, "GS", "the sequential model's graph file (or XLA HLO text module)"));

  private final PositionalParamSpec gd =
      positional(
          CodedOptions.positional(
              1,
              Path.class,
              "GD",
              "the distributed implementation's file, one graph per rank (or an SPMD XLA HLO text"
                  + " module)"));

  private final OptionSpec rel =
      option(CodedOptions.required("--rel", Path.class, "RI", "the input relation file"));

  private final OptionSpec ranks =
      option(
          CodedOptions.value(
              List.of("--ranks"),
              Integer.class,
              "N",
              "GD is an SPMD HLO module: the number of ranks it runs on (default: its header's"
                  + " num_partitions or replica_count)"));

  private final OptionSpec json =
      option(
          CodedOptions.value(
              List.of("--json"), Path.class, "FILE", "also write the report as JSON to FILE"));

  private final OptionSpec writeRelation =
      option(
          CodedOptions.value(
              List.of("--write-relation"),
              Path.class,
              "FILE",
              "on refines, write the output relation as a relation file (to feed the next layer)"));

  private final OptionSpec noReplay =
      option(
          CodedOptions.flag(
              List.of("--no-replay"),
              "search every operator's e-graph afresh, never replaying the saturation of an"
                  + " operator built alike (slower; the outcome and output are the same)"));

  private final OptionSpec verbose =
      option(CodedOptions.flag(List.of("-v", "--verbose"), "print each operator as it is checked"));

  private final OptionSpec dumpCore =
      option(
          CodedOptions.flag(
              List.of("--dump-core"),
              "print both graphs as lowered into the core language, then stop"));

  private final OptionSpec certify =
      option(
          CodedOptions.flag(
              List.of("--certify"),
              "on refines, also check every entry of the output relation on random inputs (exit 4 if one is false)"));

  private final OptionSpec junit =
      option(
          CodedOptions.value(
              List.of("--junit"),
              Path.class,
              "FILE",
              "also write the verdict as a JUnit XML report to FILE (one test case per output)"));

  private final OptionSpec sarif =
      option(
          CodedOptions.value(
              List.of("--sarif"),
              Path.class,
              "FILE",
              "also write a SARIF 2.1.0 log to FILE (a failure located at its model source line)"));

  private final OptionSpec html =
      option(
          CodedOptions.value(
              List.of("--html"),
              Path.class,
              "FILE",
              "also write a self-contained HTML page of the result to FILE"));

  private final OptionSpec name =
      option(
          CodedOptions.value(
              List.of("--name"),
              String.class,
              "NAME",
              "the case's name in the --junit, --sarif and --html reports (default: the name of"
                  + " the folder holding GS)"));

  /** The options {@code batch} shares: limits, jobs, seed, numbers, lemmas, debug. */
  private final RunOptions run =
      new RunOptions(
          spec,
          "give up with 'inconclusive' after this long, reading, lowering and numbers included",
          "check up to N operators at once, on N threads; the outcome and output are the same"
              + " for any N");

  /** Set by the check as it goes: the phase a run out of time names. */
  private volatile String phase = "reading the inputs";

  /** Whether the check's report (or the watchdog's) has begun: the one to claim it prints. */
  private final AtomicBoolean reporting = new AtomicBoolean();

  /** The time after the limit the check gets to stop by itself and report. */
  static final long GRACE_MILLIS = 500;

  /** Checks recurse deeply: the check thread gets the stack the launcher gives the main one. */
  private static final long STACK_BYTES = 16L << 20;

  private CheckCommand() {}

  /** The {@code check} command, ready to be added to the top-level command line. */
  static CommandSpec spec() {
    CommandSpec spec = new CheckCommand().spec.name("check").versionProvider(new Version());
    spec.usageMessage().description(DESCRIPTION);
    CodedOptions.addHelp(spec);
    return spec;
  }

  private PositionalParamSpec positional(PositionalParamSpec p) {
    spec.addPositional(p);
    return p;
  }

  private OptionSpec option(OptionSpec o) {
    spec.addOption(o);
    return o;
  }

  @Override
  public Integer call() {
    run.validate();
    OutputFiles.requireFolder(
        json.getValue(),
        writeRelation.getValue(),
        junit.getValue(),
        sarif.getValue(),
        html.getValue());
    List<OutputGuard.Named> outputs = outputs();
    if (outputs.stream().anyMatch(o -> o.path() != null)) {
      OutputGuard.check(inputFiles(), outputs);
    }
    long start = System.nanoTime();
    FutureTask<Integer> task = new FutureTask<>(() -> check(start));
    Thread thread = new Thread(null, task, "entangle-check", STACK_BYTES);
    thread.setDaemon(true);
    thread.start();
    long deadline = start + Math.round(run.timeoutSeconds() * 1e9) + GRACE_MILLIS * 1_000_000;
    try {
      return await(task, deadline);
    } catch (TimeoutException e) {
      if (!reporting.compareAndSet(false, true)) {
        return finish(task);
      }
      thread.interrupt();
      String at = phase;
      String reason =
          "the check ran out of time (--timeout "
              + java.math.BigDecimal.valueOf(run.timeoutSeconds())
                  .stripTrailingZeros()
                  .toPlainString()
              + " s) while "
              + at
              + ", and was stopped there; nothing after it was checked. Give a larger --timeout.";
      PrintWriter out = spec.commandLine().getOut();
      out.println(Verdict.INCONCLUSIVE.json());
      out.println(reason);
      out.flush();
      new StoppedReports(
              CaseLabel.of(gs.getValue(), gd.getValue(), rel.getValue(), name.getValue()),
              at,
              reason,
              (System.nanoTime() - start) / 1e9)
          .write(json.getValue(), junit.getValue(), sarif.getValue(), html.getValue());
      return ExitCodes.INCONCLUSIVE;
    }
  }

  /** The task's result, however long it takes (its report has begun). */
  private static Integer finish(FutureTask<Integer> task) {
    try {
      return await(task, Long.MAX_VALUE);
    } catch (TimeoutException e) {
      throw new IllegalStateException("a wait without a limit timed out", e);
    }
  }

  /** The task's result, waiting until {@code deadline} (a {@link System#nanoTime}) at most. */
  private static Integer await(FutureTask<Integer> task, long deadline) throws TimeoutException {
    return Background.await(task, deadline);
  }

  /** The whole check, on its own thread; {@code start} is when the run began. */
  private Integer check(long start) {
    CheckSettings base = run.settings();
    CheckSettings settings =
        new CheckSettings(
            base.options().withJobs(run.jobs()).withReplay(!isSet(noReplay)),
            base.numbers(),
            base.seed(),
            base.draws(),
            base.numericBudget());
    // The lemmas are read and compiled while the graphs are read and lowered. Errors come in the
    // order of a run in sequence: the inputs', then the lemmas', then the lowering's.
    Background<LoadedLemmas> loading = CheckLemmas.loading(run.lemmaDirs());
    CheckInputs in =
        CheckInputs.read(gs.getValue(), gd.getValue(), rel.getValue(), ranks.getValue());
    RankCount.check(in.gd(), gd.getValue());
    phase = "lowering the graphs";
    Programs programs;
    try {
      programs = CheckPipeline.lower(in);
    } catch (RuntimeException e) {
      loading.join();
      throw e;
    }
    phase = "loading the lemmas";
    LoadedLemmas loaded = loading.join();
    Lemmas rules = loaded.lemmas();
    CoreProgram gsp = programs.gs();
    CoreProgram gdp = programs.gd();
    PrintWriter out = spec.commandLine().getOut();
    if (isSet(dumpCore)) {
      if (!reporting.compareAndSet(false, true)) {
        return ExitCodes.INCONCLUSIVE;
      }
      ProgramDump.print(gsp, "G_s", out);
      ProgramDump.print(gdp, "G_d", out);
      return ExitCodes.REFINES;
    }
    PrintWriter err = spec.commandLine().getErr();
    String untested = loaded.user().untestedWarning();
    if (untested != null) {
      err.println("entangle: " + untested);
    }
    if (isSet(verbose)) {
      OpaqueListing.print(gsp, gdp, err);
    }
    TermText text = new TermText(gdp);
    CheckListener listener =
        Listeners.of(
            isSet(verbose) ? new VerboseProgress(err, gsp, text) : ProgressBar.forTerminal(err),
            Trace.enabled() ? new Trace(err, text) : CheckListener.NONE);
    phase = "checking";
    CheckResult result;
    try {
      result = CheckPipeline.check(in, programs, rules, settings, listener, start);
    } catch (AnalysisConflict e) {
      InputException blamed = loaded.user().blame(e);
      throw blamed != null ? blamed : e;
    }
    UnrelatedInput.check(result, gsp, rel.getValue());
    phase = "writing the report";
    if (!reporting.compareAndSet(false, true)) {
      return ExitCodes.INCONCLUSIVE; // the watchdog reported first
    }
    Report report = Report.of(result, gsp, gdp);
    TextReport.print(report, out);
    Path jsonFile = json.getValue();
    if (jsonFile != null) {
      JsonReport.write(report, jsonFile);
    }
    writeCiReports(report, gsp, gdp);
    if (result.verdict() == Verdict.REFINES) {
      var fired = result.stats().lemmaApplications();
      boolean untestedUsed = loaded.user().usedUntested(fired);
      if (untestedUsed && !isSet(certify)) {
        err.println(
            "entangle: the proof used an untested lemma of yours; its output relation is"
                + " certified on numbers.");
      }
      if (isSet(certify) || untestedUsed) {
        Numbers certifier = CheckPipeline.oracle(in, programs, settings);
        if (!Certificate.holds(result, certifier, gsp, text, err, loaded.user().used(fired))) {
          return ExitCodes.CERTIFICATE_VIOLATED;
        }
      }
    }
    Path relationFile = writeRelation.getValue();
    if (relationFile != null && result.verdict() == Verdict.REFINES) {
      JsonReport.writeRelation(report, relationFile);
    }
    return ExitCodes.of(result.verdict());
  }

  /** Every file the check reads: the graphs, the relation and the lemma files. */
  private List<Path> inputFiles() {
    List<Path> in = new ArrayList<>(List.of(gs.getValue(), gd.getValue(), rel.getValue()));
    for (Path dir : run.lemmaDirs()) {
      in.addAll(OutputGuard.filesIn(dir, ""));
    }
    try {
      in.addAll(OutputGuard.filesIn(LemmaPaths.defaultDir(), ""));
    } catch (InputException e) {
      // reported when the lemmas are loaded
    }
    return in;
  }

  /** Every file the check may write, with its option. */
  private List<OutputGuard.Named> outputs() {
    List<OutputGuard.Named> out = new ArrayList<>();
    for (OptionSpec o : List.of(json, writeRelation, junit, sarif, html)) {
      out.add(new OutputGuard.Named(o.longestName(), o.getValue()));
    }
    return out;
  }

  private static boolean isSet(OptionSpec flag) {
    return flag.<Boolean>getValue();
  }

  /** The {@code --junit}, {@code --sarif} and {@code --html} files, where asked for. */
  private void writeCiReports(Report report, CoreProgram gsp, CoreProgram gdp) {
    CaseLabel label = CaseLabel.of(gs.getValue(), gd.getValue(), rel.getValue(), name.getValue());
    Path junitFile = junit.getValue();
    if (junitFile != null) {
      JunitReport.write(JunitReport.forCheck(label, report), junitFile);
    }
    Path sarifFile = sarif.getValue();
    if (sarifFile != null) {
      SarifReport.write(List.of(new SarifReport.Checked(label, report)), List.of(), sarifFile);
    }
    Path htmlFile = html.getValue();
    if (htmlFile != null) {
      HtmlReport.write(
          label,
          report,
          Neighbourhood.of(gsp, report),
          GdNeighbourhood.of(gsp, gdp, report),
          htmlFile);
    }
  }
}
