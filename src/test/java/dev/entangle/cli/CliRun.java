package dev.entangle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * One in-process run of the {@code entangle} command line through {@link Main#run}: the exit code
 * and what it printed. The lemma folder is found through the system property {@code entangle.home},
 * set to the project root (the tests' working directory).
 *
 * @param args the arguments, for messages
 * @param exitCode what {@code Main.run} returned
 * @param out standard output
 * @param err standard error
 */
public record CliRun(String args, int exitCode, String out, String err) {
  /** The project root: tests run there (surefire's working directory). */
  public static final Path PROJECT_ROOT = Path.of("").toAbsolutePath();

  /**
   * Runs {@code entangle ARGS...}; each argument is a string or a path. The shipped lemmas are the
   * project's unless a test set {@code entangle.home} to a folder of its own.
   */
  public static CliRun run(Object... args) {
    assertTrue(
        Files.isDirectory(PROJECT_ROOT.resolve("lemmas")),
        "tests run from the project root, which holds lemmas/; the working directory is "
            + PROJECT_ROOT);
    if (System.getProperty("entangle.home") == null) {
      System.setProperty("entangle.home", PROJECT_ROOT.toString());
    }
    String[] argv = Arrays.stream(args).map(String::valueOf).toArray(String[]::new);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.run(argv, new PrintWriter(out), new PrintWriter(err));
    return new CliRun(String.join(" ", argv), code, out.toString(), err.toString());
  }

  /** {@code entangle check GS GD --rel RI EXTRA...}. */
  public static CliRun check(Path gs, Path gd, Path ri, Object... extra) {
    Object[] args = new Object[5 + extra.length];
    args[0] = "check";
    args[1] = gs;
    args[2] = gd;
    args[3] = "--rel";
    args[4] = ri;
    System.arraycopy(extra, 0, args, 5, extra.length);
    return run(args);
  }

  /** The first line of standard output: the verdict, for a check that ran. */
  public String verdictLine() {
    int nl = out.indexOf('\n');
    return (nl < 0 ? out : out.substring(0, nl)).strip();
  }

  /** Everything the run printed, for assertion messages. */
  public String transcript() {
    return "entangle "
        + args
        + "\n-- exit "
        + exitCode
        + "\n-- stdout:\n"
        + out
        + "-- stderr:\n"
        + err;
  }

  /**
   * Asserts the run was rejected as bad input or usage: exit 2, no report on stdout, and on stderr
   * one paragraph (no blank line, no stack trace, no exception class) that contains every {@code
   * part}.
   */
  public CliRun assertInputError(String... parts) {
    assertEquals(2, exitCode, this::transcript);
    assertEquals("", out, this::transcript);
    assertTrue(err.startsWith("entangle: "), this::transcript);
    String body = err.strip();
    assertFalse(body.isEmpty(), this::transcript);
    assertFalse(body.contains("\n\n"), () -> "more than one paragraph:\n" + transcript());
    assertFalse(body.contains("\tat "), () -> "stack trace:\n" + transcript());
    assertFalse(body.contains("Exception"), () -> "exception class name:\n" + transcript());
    assertFalse(body.contains("internal error"), () -> "internal error:\n" + transcript());
    for (String p : parts) {
      assertTrue(err.contains(p), () -> "expected <" + p + "> on stderr:\n" + transcript());
    }
    return this;
  }

  /** The exit code the contract gives a verdict (docs/formats.md, Exit codes). */
  public static int exitCodeOf(String verdict) {
    return switch (verdict) {
      case "refines" -> 0;
      case "not-refined", "expectation-violated" -> 1;
      case "inconclusive", "unproved", "unsupported" -> 3;
      default -> throw new AssertionError("unknown verdict " + verdict);
    };
  }
}
