package dev.entangle.refine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.entangle.cli.CliRun;
import dev.entangle.cli.Reports;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks that two ways of running {@code check} (other options that promise the same outcome) give
 * what a user sees alike: the exit code, stdout, the verbose trace on stderr and the JSON report,
 * timings aside.
 */
final class SameOutput {
  private final Path tmp;

  SameOutput(Path tmp) {
    this.tmp = tmp;
  }

  /** Runs the check with {@code first} and with {@code second} added and compares the two. */
  void compare(String name, Path gs, Path gd, Path ri, Object[] first, Object[] second)
      throws IOException {
    CliRun one = run(name + "-a", gs, gd, ri, first);
    CliRun two = run(name + "-b", gs, gd, ri, second);
    assertEquals(one.exitCode(), two.exitCode(), two::transcript);
    assertEquals(withoutTimes(one.out()), withoutTimes(two.out()), name);
    assertEquals(withoutTimes(one.err()), withoutTimes(two.err()), name);
    assertEquals(report(name + "-a"), report(name + "-b"), name);
  }

  private CliRun run(String tag, Path gs, Path gd, Path ri, Object[] options) {
    Path report = tmp.resolve(tag + ".json");
    List<Object> args = new ArrayList<>(List.of("-v", "--json", report));
    args.addAll(List.of(options));
    CliRun run = CliRun.check(gs, gd, ri, args.toArray());
    assertTrue(Files.exists(report), run::transcript);
    return run;
  }

  private JsonNode report(String tag) throws IOException {
    JsonNode json = Reports.read(tmp.resolve(tag + ".json"));
    ((ObjectNode) json.path("stats")).remove("seconds");
    return json;
  }

  /** The text with its timings (milliseconds per operator, seconds per check) left out. */
  private static String withoutTimes(String text) {
    return text.replaceAll("\\(\\d+ ms\\)", "").replaceAll("in \\d+(\\.\\d+)? s", "");
  }
}
