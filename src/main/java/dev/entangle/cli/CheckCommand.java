package dev.entangle.cli;

import dev.entangle.check.CheckInputs;
import dev.entangle.check.CheckPipeline;
import dev.entangle.check.CheckSettings;
import dev.entangle.check.Programs;
import dev.entangle.lower.CoreProgram;
import dev.entangle.lower.ProgramDump;
import dev.entangle.lower.TermText;
import dev.entangle.refine.CheckListener;
import dev.entangle.refine.CheckOptions;
import dev.entangle.refine.CheckResult;
import dev.entangle.refine.Numbers;
import dev.entangle.refine.Verdict;
import dev.entangle.rules.LemmaLibrary;
import dev.entangle.rules.Lemmas;
import dev.entangle.util.InputException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code entangle check GS GD --rel RI}: the refinement check. */
@Command(
    name = "check",
    mixinStandardHelpOptions = true,
    description =
        "Checks that G_d refines G_s under the input relation. Prints the verdict, then the output "
            + "relation (one line per G_s output) or where the check failed.")
final class CheckCommand implements Callable<Integer> {
  /** Independent random draws a numeric candidate must hold on. */
  static final int DRAWS = CheckSettings.DRAWS;

  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "GS", description = "the sequential model's graph file")
  Path gs;

  @Parameters(
      index = "1",
      paramLabel = "GD",
      description = "the distributed implementation's file (one graph per rank)")
  Path gd;

  @Option(
      names = "--rel",
      required = true,
      paramLabel = "RI",
      description = "the input relation file")
  Path rel;

  @Option(
      names = "--json",
      paramLabel = "FILE",
      description = "also write the report as JSON to FILE")
  Path json;

  @Option(
      names = "--write-relation",
      paramLabel = "FILE",
      description =
          "on refines, write the output relation as a relation file (to feed the next layer)")
  Path writeRelation;

  @Option(
      names = "--lemmas",
      paramLabel = "DIR",
      description = "an extra folder of *.lemmas files (repeatable)")
  List<Path> lemmas = new ArrayList<>();

  @Option(
      names = "--timeout",
      paramLabel = "SECONDS",
      defaultValue = "600",
      description = "give up with 'inconclusive' after this long (default: ${DEFAULT-VALUE})")
  double timeout;

  @Option(
      names = "--node-limit",
      paramLabel = "N",
      defaultValue = "200000",
      description =
          "most e-nodes per operator's e-graph before 'inconclusive' (default: ${DEFAULT-VALUE})")
  int nodeLimit;

  @Option(
      names = {"-j", "--jobs"},
      paramLabel = "N",
      description =
          "check up to N operators at once, on N threads; the outcome and output are the same"
              + " for any N (default: the machine's processors, less one when the launcher"
              + " runs the optimizing compiler, which needs it)")
  Integer jobs;

  @Option(
      names = {"-v", "--verbose"},
      description = "print each operator as it is checked")
  boolean verbose;

  @Option(names = "--debug", description = "print stack traces of internal errors")
  boolean debug;

  @Option(
      names = "--dump-core",
      description = "print both graphs as lowered into the core language, then stop")
  boolean dumpCore;

  @Option(
      names = "--seed",
      paramLabel = "N",
      defaultValue = "1",
      description =
          "seed of the random inputs the numbers are drawn with, when a proof fails (default: ${DEFAULT-VALUE})")
  long seed;

  @Option(
      names = "--numeric-budget",
      paramLabel = "GFLOP",
      defaultValue = "4",
      description =
          "most work, in billions of operations, of one evaluation on numbers; past it the numbers say what"
              + " they skipped (default: ${DEFAULT-VALUE})")
  double numericBudget;

  @Option(
      names = "--no-numbers",
      description = "do not evaluate on numbers where a proof fails (no witness, never 'unproved')")
  boolean noNumbers;

  @Option(
      names = "--certify",
      description =
          "on refines, also check every entry of the output relation on random inputs (exit 4 if one is false)")
  boolean certify;

  @Option(
      names = "--junit",
      paramLabel = "FILE",
      description =
          "also write the verdict as a JUnit XML report to FILE (one test case per output)")
  Path junit;

  @Option(
      names = "--sarif",
      paramLabel = "FILE",
      description =
          "also write a SARIF 2.1.0 log to FILE (a failure located at its model source line)")
  Path sarif;

  @Option(
      names = "--html",
      paramLabel = "FILE",
      description = "also write a self-contained HTML page of the result to FILE")
  Path html;

  /**
   * The processors, or what the launcher passes as {@code entangle.jobs}: one fewer when it runs
   * the optimizing compiler, whose threads compete with a second check on a small machine.
   */
  private static int defaultJobs() {
    int n = Integer.getInteger("entangle.jobs", Runtime.getRuntime().availableProcessors());
    return Math.max(1, n);
  }

  @Override
  public Integer call() {
    if (jobs != null && jobs < 1) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--jobs must be at least 1 (got " + jobs + ")");
    }
    if (timeout <= 0 || nodeLimit <= 0 || numericBudget <= 0) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "--timeout, --node-limit and --numeric-budget must be positive (got "
              + timeout
              + ", "
              + nodeLimit
              + " and "
              + numericBudget
              + ")");
    }
    for (Path p : new Path[] {json, writeRelation, junit, sarif, html}) {
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
    Background<Lemmas> loading = Background.start("entangle-lemmas", this::loadLemmas);
    CheckInputs in = CheckInputs.read(gs, gd, rel);
    CheckSettings settings =
        new CheckSettings(
            CheckOptions.defaults()
                .withTimeout(Duration.ofMillis((long) (timeout * 1000)))
                .withNodeLimit(nodeLimit)
                .withJobs(jobs != null ? jobs : defaultJobs()),
            !noNumbers,
            seed,
            DRAWS,
            (long) (numericBudget * 1e9));
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
    if (dumpCore) {
      ProgramDump.print(gsp, "G_s", out);
      ProgramDump.print(gdp, "G_d", out);
      return ExitCodes.REFINES;
    }
    PrintWriter err = spec.commandLine().getErr();
    TermText text = new TermText(gdp);
    CheckListener listener =
        Listeners.of(
            verbose ? new VerboseProgress(err, gsp, text) : ProgressBar.forTerminal(err),
            Trace.enabled() ? new Trace(err, text) : CheckListener.NONE);
    CheckResult result = CheckPipeline.check(in, programs, rules, settings, listener, start);
    Report report = Report.of(result, gsp, gdp);
    TextReport.print(report, out);
    if (json != null) {
      JsonReport.write(report, json);
    }
    writeCiReports(report, gsp);
    if (writeRelation != null && result.verdict() == Verdict.REFINES) {
      JsonReport.writeRelation(report, writeRelation);
    }
    if (certify && result.verdict() == Verdict.REFINES) {
      Numbers certifier = CheckPipeline.oracle(in, programs, settings);
      if (!Certificate.holds(result, certifier, gsp, text, err)) {
        return ExitCodes.CERTIFICATE_VIOLATED;
      }
    }
    return ExitCodes.of(result.verdict());
  }

  /** The shipped lemmas, then those of every {@code --lemmas} folder. */
  private Lemmas loadLemmas() {
    List<Path> dirs = new ArrayList<>();
    dirs.add(LemmaPaths.defaultDir());
    dirs.addAll(lemmas);
    return LemmaLibrary.load(dirs);
  }

  /** The {@code --junit}, {@code --sarif} and {@code --html} files, where asked for. */
  private void writeCiReports(Report report, CoreProgram gsp) {
    CaseLabel label = CaseLabel.of(gs, gd, rel);
    if (junit != null) {
      JunitReport.write(JunitReport.forCheck(label, report), junit);
    }
    if (sarif != null) {
      SarifReport.write(List.of(new SarifReport.Checked(label, report)), List.of(), sarif);
    }
    if (html != null) {
      HtmlReport.write(label, report, Neighbourhood.of(gsp, report), html);
    }
  }
}
