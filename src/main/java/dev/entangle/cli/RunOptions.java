package dev.entangle.cli;

import dev.entangle.check.CheckSettings;
import dev.entangle.refine.CheckOptions;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The options {@code check} and {@code batch} share, defined once: the limits of a check ({@code
 * --timeout}, {@code --node-limit}, {@code --numeric-budget}), {@code --jobs}, {@code --seed},
 * {@code --no-numbers}, {@code --lemmas} and {@code --debug}. Their defaults are those of {@link
 * CheckSettings#defaults()}. They are built in code ({@link CodedOptions}), as {@code check} is,
 * and every value is range-checked before a run starts.
 */
final class RunOptions {
  /** The most threads {@code --jobs} may ask for. */
  static final int MAX_JOBS = 1024;

  /** The largest {@code --numeric-budget}, in GFLOP (a budget in operations fits a long). */
  static final double MAX_GFLOP = 1e9;

  private static final CheckSettings DEFAULTS = CheckSettings.defaults();

  private final CommandSpec spec;
  private final OptionSpec lemmas;
  private final OptionSpec timeout;
  private final OptionSpec nodeLimit;
  private final OptionSpec jobs;
  private final OptionSpec seed;
  private final OptionSpec numericBudget;
  private final OptionSpec noNumbers;
  private final OptionSpec debug;

  /**
   * Adds the shared options to {@code spec}.
   *
   * @param timeoutMeaning what {@code --timeout} limits, e.g. "give up with 'inconclusive' after
   *     this long"
   * @param jobsMeaning what {@code --jobs} runs at once
   */
  RunOptions(CommandSpec spec, String timeoutMeaning, String jobsMeaning) {
    this.spec = spec;
    lemmas =
        add(
            CodedOptions.repeatable(
                "--lemmas",
                Path.class,
                "DIR",
                "an extra folder of *.lemmas files (repeatable), each lemma checked on numbers"
                    + " before it is used"));
    timeout =
        add(
            CodedOptions.withDefault(
                "--timeout",
                double.class,
                "SECONDS",
                plain(DEFAULTS.options().timeout().toMillis() / 1000.0),
                timeoutMeaning + " (default: ${DEFAULT-VALUE})"));
    nodeLimit =
        add(
            CodedOptions.withDefault(
                "--node-limit",
                int.class,
                "N",
                Integer.toString(DEFAULTS.options().nodeLimit()),
                "most e-nodes per operator's e-graph before 'inconclusive' (default:"
                    + " ${DEFAULT-VALUE})"));
    jobs =
        add(
            CodedOptions.value(
                List.of("-j", "--jobs"),
                Integer.class,
                "N",
                jobsMeaning + " (default: the machine's processors)"));
    seed =
        add(
            CodedOptions.withDefault(
                "--seed",
                long.class,
                "N",
                Long.toString(DEFAULTS.seed()),
                "seed of the random inputs the numbers are drawn with, when a proof fails"
                    + " (default: ${DEFAULT-VALUE})"));
    numericBudget =
        add(
            CodedOptions.withDefault(
                "--numeric-budget",
                double.class,
                "GFLOP",
                plain(DEFAULTS.numericBudget() / 1e9),
                "most work, in billions of operations, of one evaluation on numbers; past it the"
                    + " numbers say what they skipped (default: ${DEFAULT-VALUE})"));
    noNumbers =
        add(
            CodedOptions.flag(
                List.of("--no-numbers"),
                "do not evaluate on numbers where a proof fails (no witness, never 'unproved')"));
    debug = add(CodedOptions.flag(List.of("--debug"), "print stack traces of internal errors"));
  }

  private OptionSpec add(OptionSpec o) {
    spec.addOption(o);
    return o;
  }

  /** A number as a user writes it: {@code 600}, {@code 0.5}. */
  private static String plain(double v) {
    return BigDecimal.valueOf(v).stripTrailingZeros().toPlainString();
  }

  /**
   * Fails with a usage error (exit 2) naming the option when a value is out of range: a time limit
   * or budget that is not a positive finite number below its maximum, a count below 1.
   */
  void validate() {
    double seconds = timeout.getValue();
    if (!(seconds > 0 && seconds <= CheckSettings.MAX_TIMEOUT_SECONDS)) {
      throw usage(
          "--timeout must be a positive number of seconds, at most "
              + plain(CheckSettings.MAX_TIMEOUT_SECONDS)
              + " (got "
              + seconds
              + ")");
    }
    int nodes = nodeLimit.getValue();
    if (nodes <= 0) {
      throw usage("--node-limit must be positive (got " + nodes + ")");
    }
    double gflop = numericBudget.getValue();
    if (!(gflop > 0 && gflop <= MAX_GFLOP)) {
      throw usage(
          "--numeric-budget must be a positive number of GFLOP, at most "
              + plain(MAX_GFLOP)
              + " (got "
              + gflop
              + ")");
    }
    Integer n = jobs.getValue();
    if (n != null && (n < 1 || n > MAX_JOBS)) {
      throw usage("--jobs must be from 1 to " + MAX_JOBS + " (got " + n + ")");
    }
  }

  private CommandLine.ParameterException usage(String message) {
    return new CommandLine.ParameterException(spec.commandLine(), message);
  }

  /** The time limit, in seconds (validated). */
  double timeoutSeconds() {
    return timeout.getValue();
  }

  /** {@code --jobs}, or the machine's processors. */
  int jobs() {
    Integer n = jobs.getValue();
    return n != null ? n : Math.max(1, Runtime.getRuntime().availableProcessors());
  }

  List<Path> lemmaDirs() {
    return lemmas.getValue();
  }

  boolean debug() {
    return debug.<Boolean>getValue();
  }

  /** The settings of a check: these limits, numbers, seed and budget; other options as default. */
  CheckSettings settings() {
    CheckOptions options =
        DEFAULTS
            .options()
            .withTimeout(Duration.ofMillis(Math.round(timeoutSeconds() * 1000)))
            .withNodeLimit(nodeLimit.getValue());
    double gflop = numericBudget.getValue();
    return new CheckSettings(
        options,
        !noNumbers.<Boolean>getValue(),
        seed.<Long>getValue(),
        DEFAULTS.draws(),
        (long) (gflop * 1e9));
  }
}
