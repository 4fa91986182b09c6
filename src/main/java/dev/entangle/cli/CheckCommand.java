package dev.entangle.cli;

import dev.entangle.check.CheckInputs;
import dev.entangle.check.CheckPipeline;
import dev.entangle.check.CheckSettings;
import dev.entangle.check.Programs;
import dev.entangle.core.CoreProgram;
import dev.entangle.lower.ProgramDump;
import dev.entangle.lower.TermText;
import dev.entangle.refine.CheckListener;
import dev.entangle.refine.CheckOptions;
import dev.entangle.refine.CheckResult;
import dev.entangle.refine.Numbers;
import dev.entangle.refine.Verdict;
import dev.entangle.rules.Lemmas;
import dev.entangle.util.InputException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
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
      positional(CodedOptions.positional(0, Path.class, "GS", "the sequential model's graph file"));

  private final PositionalParamSpec gd =
      positional(
          CodedOptions.positional(
              1, Path.class, "GD", "the distributed implementation's file (one graph per rank)"));

  private final OptionSpec rel =
      option(CodedOptions.required("--rel", Path.class, "RI", "the input relation file"));

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

  private final OptionSpec lemmas =
      option(
          CodedOptions.repeatable(
              "--lemmas", Path.class, "DIR", "an extra folder of *.lemmas files (repeatable)"));

  private final OptionSpec timeout =
      option(
          CodedOptions.withDefault(
              "--timeout",
              double.class,
              "SECONDS",
              "600",
              "give up with 'inconclusive' after this long (default: ${DEFAULT-VALUE})"));

  private final OptionSpec nodeLimit =
      option(
          CodedOptions.withDefault(
              "--node-limit",
              int.class,
              "N",
              "200000",
              "most e-nodes per operator's e-graph before 'inconclusive' (default: ${DEFAULT-VALUE})"));

  private final OptionSpec jobs =
      option(
          CodedOptions.value(
              List.of("-j", "--jobs"),
              Integer.class,
              "N",
              "check up to N operators at once, on N threads; the outcome and output are the same"
                  + " for any N (default: the machine's processors)"));

  private final OptionSpec noReplay =
      option(
          CodedOptions.flag(
              List.of("--no-replay"),
              "search every operator's e-graph afresh, never replaying the saturation of an"
                  + " operator built alike (slower; the outcome and output are the same)"));

  private final OptionSpec verbose =
      option(CodedOptions.flag(List.of("-v", "--verbose"), "print each operator as it is checked"));

  private final OptionSpec debug =
      option(CodedOptions.flag(List.of("--debug"), "print stack traces of internal errors"));

  private final OptionSpec dumpCore =
      option(
          CodedOptions.flag(
              List.of("--dump-core"),
              "print both graphs as lowered into the core language, then stop"));

  private final OptionSpec seed =
      option(
          CodedOptions.withDefault(
              "--seed",
              long.class,
              "N",
              "1",
              "seed of the random inputs the numbers are drawn with, when a proof fails (default: ${DEFAULT-VALUE})"));

  private final OptionSpec numericBudget =
      option(
          CodedOptions.withDefault(
              "--numeric-budget",
              double.class,
              "GFLOP",
              "4",
              "most work, in billions of operations, of one evaluation on numbers; past it the numbers say what"
                  + " they skipped (default: ${DEFAULT-VALUE})"));

  private final OptionSpec noNumbers =
      option(
          CodedOptions.flag(
              List.of("--no-numbers"),
              "do not evaluate on numbers where a proof fails (no witness, never 'unproved')"));

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

  /** The machine's processors. */
  private static int defaultJobs() {
    return Math.max(1, Runtime.getRuntime().availableProcessors());
  }

  @Override
  public Integer call() {
    Integer threads = jobs.getValue();
    if (threads != null && threads < 1) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--jobs must be at least 1 (got " + threads + ")");
    }
    double seconds = timeout.getValue();
    int nodes = nodeLimit.getValue();
    double gflop = numericBudget.getValue();
    if (seconds <= 0 || nodes <= 0 || gflop <= 0) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "--timeout, --node-limit and --numeric-budget must be positive (got "
              + seconds
              + ", "
              + nodes
              + " and "
              + gflop
              + ")");
    }
    for (OptionSpec file : List.of(json, writeRelation, junit, sarif, html)) {
      Path p = file.getValue();
      Path parent = p == null ? null : p.toAbsolutePath().getParent();
      if (parent != null && !Files.isDirectory(parent)) {
        throw new InputException(
            "cannot write "
                + p
                + ": the folder "
                + parent
                + " does not exist; create it or choose another path.");
      }
    }
    // The lemmas are read and compiled while the graphs are read and lowered. Errors come in the
    // order of a run in sequence: the inputs', then the lemmas', then the lowering's.
    Background<Lemmas> loading = CheckLemmas.loading(lemmas.<List<Path>>getValue());
    CheckInputs in = CheckInputs.read(gs.getValue(), gd.getValue(), rel.getValue());
    RankCount.check(in.gd(), gd.getValue());
    CheckSettings settings =
        new CheckSettings(
            CheckOptions.defaults()
                .withTimeout(Duration.ofMillis((long) (seconds * 1000)))
                .withNodeLimit(nodes)
                .withJobs(threads != null ? threads : defaultJobs())
                .withReplay(!isSet(noReplay)),
            !isSet(noNumbers),
            seed.getValue(),
            DRAWS,
            (long) (gflop * 1e9));
    long start = System.nanoTime();
    Programs programs;
    try {
      programs = CheckPipeline.lower(in);
    } catch (RuntimeException e) {
      loading.join();
      throw e;
    }
    Lemmas rules = loading.join();
    CoreProgram gsp = programs.gs();
    CoreProgram gdp = programs.gd();
    PrintWriter out = spec.commandLine().getOut();
    if (isSet(dumpCore)) {
      ProgramDump.print(gsp, "G_s", out);
      ProgramDump.print(gdp, "G_d", out);
      return ExitCodes.REFINES;
    }
    PrintWriter err = spec.commandLine().getErr();
    TermText text = new TermText(gdp);
    CheckListener listener =
        Listeners.of(
            isSet(verbose) ? new VerboseProgress(err, gsp, text) : ProgressBar.forTerminal(err),
            Trace.enabled() ? new Trace(err, text) : CheckListener.NONE);
    CheckResult result = CheckPipeline.check(in, programs, rules, settings, listener, start);
    UnrelatedInput.check(result, gsp, rel.getValue());
    Report report = Report.of(result, gsp, gdp);
    TextReport.print(report, out);
    Path jsonFile = json.getValue();
    if (jsonFile != null) {
      JsonReport.write(report, jsonFile);
    }
    writeCiReports(report, gsp);
    Path relationFile = writeRelation.getValue();
    if (relationFile != null && result.verdict() == Verdict.REFINES) {
      JsonReport.writeRelation(report, relationFile);
    }
    if (isSet(certify) && result.verdict() == Verdict.REFINES) {
      Numbers certifier = CheckPipeline.oracle(in, programs, settings);
      if (!Certificate.holds(result, certifier, gsp, text, err)) {
        return ExitCodes.CERTIFICATE_VIOLATED;
      }
    }
    return ExitCodes.of(result.verdict());
  }

  private static boolean isSet(OptionSpec flag) {
    return flag.<Boolean>getValue();
  }

  /** The {@code --junit}, {@code --sarif} and {@code --html} files, where asked for. */
  private void writeCiReports(Report report, CoreProgram gsp) {
    CaseLabel label = CaseLabel.of(gs.getValue(), gd.getValue(), rel.getValue());
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
      HtmlReport.write(label, report, Neighbourhood.of(gsp, report), htmlFile);
    }
  }
}
