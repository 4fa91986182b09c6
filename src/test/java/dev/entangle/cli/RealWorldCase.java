package dev.entangle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.entangle.importer.ImportOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;

/**
 * A case under {@code ../shared/realworld}: printed torch.fx graphs ({@code gs.py}, {@code
 * gd.rK.py}), {@code ri.json}, and {@code expected.json} with the verdict and the arguments of
 * {@code entangle import} for each side ({@code import_gs}, {@code import_gd}).
 *
 * @param name the folder's name
 * @param dir the folder
 * @param expected the parsed {@code expected.json}
 */
public record RealWorldCase(String name, Path dir, JsonNode expected) {
  /**
   * Where the real-world graphs are, relative to the project root; absent in a fresh clone
   * elsewhere.
   */
  public static final Path ROOT = CliRun.PROJECT_ROOT.resolve("../shared/realworld").normalize();

  /**
   * One dynamic test per case, made by {@code perCase}; when the folder is absent, one test that is
   * skipped saying so (a test factory that aborts is not reported as skipped).
   */
  public static Stream<DynamicTest> tests(Function<RealWorldCase, Stream<DynamicTest>> perCase) {
    if (!Files.isDirectory(ROOT)) {
      return Stream.of(DynamicTest.dynamicTest("real-world cases", RealWorldCase::assumePresent));
    }
    return all().stream().flatMap(perCase);
  }

  /** A test body over one case imported into a folder of its own. */
  @FunctionalInterface
  public interface ImportedTest {
    void run(String name, Imported in) throws Exception;
  }

  /**
   * One dynamic test per case ({@link #tests}), which imports the case into a new folder under
   * {@code tmp} and runs {@code body} on it.
   */
  public static Stream<DynamicTest> importedTests(Path tmp, ImportedTest body) {
    return tests(
        c ->
            Stream.of(
                DynamicTest.dynamicTest(
                    c.name(),
                    () ->
                        body.run(
                            c.name(), c.importInto(Files.createTempDirectory(tmp, c.name()))))));
  }

  /** Skips the calling test, saying why, when the real-world folder is absent. */
  public static void assumePresent() {
    assumeTrue(
        Files.isDirectory(ROOT), "skipped: the real-world graphs folder " + ROOT + " is absent");
  }

  /** Every folder of the real-world graphs that holds an {@code expected.json}, by name. */
  public static List<RealWorldCase> all() {
    assumePresent();
    List<RealWorldCase> cases = new ArrayList<>();
    try (Stream<Path> dirs = Files.list(ROOT)) {
      for (Path dir : dirs.filter(Files::isDirectory).sorted().toList()) {
        Path expected = dir.resolve("expected.json");
        if (Files.exists(expected)) {
          cases.add(
              new RealWorldCase(
                  dir.getFileName().toString(), dir, ExampleCase.JSON.readTree(expected.toFile())));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (cases.isEmpty()) {
      throw new AssertionError("no cases (folders with expected.json) under " + ROOT);
    }
    return cases;
  }

  /** Every printed graph ({@code *.py}) under the real-world folder. */
  public static List<Path> printedGraphs() {
    assumePresent();
    try (Stream<Path> files = Files.walk(ROOT)) {
      return files.filter(p -> p.toString().endsWith(".py")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The verdicts {@code expected.json} accepts ({@code a|b} means either). */
  public List<String> verdicts() {
    return List.of(expected.get("verdict").asText().split("\\|"));
  }

  /** The import arguments of one side ({@code "import_gs"} or {@code "import_gd"}), as given. */
  public List<String> importArgs(String side) {
    JsonNode argv = expected.get(side);
    if (argv == null || !argv.isArray() || argv.isEmpty()) {
      throw new AssertionError(dir.resolve("expected.json") + " has no " + side + " list");
    }
    List<String> out = new ArrayList<>();
    argv.forEach(a -> out.add(a.asText()));
    return out;
  }

  /** The files of one side's import arguments, resolved against the case folder. */
  public List<Path> importFiles(String side) {
    return parse(side).files();
  }

  /** The options of one side's import arguments, as {@code entangle import} builds them. */
  public ImportOptions importOptions(String side) {
    return parse(side).options();
  }

  /** The case's graphs imported into a folder, and its relation file. */
  public record Imported(Path gs, Path gd, Path ri) {}

  /**
   * Imports both sides into {@code folder} ({@code gs.json}, {@code gd.json}), asserting that each
   * import succeeds.
   */
  public Imported importInto(Path folder) {
    Path gs = folder.resolve("gs.json");
    Path gd = folder.resolve("gd.json");
    CliRun a = runImport("import_gs", gs);
    assertEquals(0, a.exitCode(), a::transcript);
    CliRun b = runImport("import_gd", gd);
    assertEquals(0, b.exitCode(), b::transcript);
    return new Imported(gs, gd, dir.resolve("ri.json"));
  }

  /** {@code entangle import} of one side, writing {@code out}. */
  public CliRun runImport(String side, Path out) {
    List<Object> args = new ArrayList<>();
    args.add("import");
    List<String> argv = importArgs(side);
    for (int i = 0; i < argv.size(); i++) {
      String a = argv.get(i);
      if (a.startsWith("-")) {
        args.add(a);
        args.add(a.equals("--schemas") ? dir.resolve(argv.get(++i)) : argv.get(++i));
      } else {
        args.add(dir.resolve(a));
      }
    }
    args.add("-o");
    args.add(out);
    return CliRun.run(args.toArray());
  }

  private record Parsed(List<Path> files, ImportOptions options) {}

  private Parsed parse(String side) {
    List<String> argv = importArgs(side);
    List<Path> files = new ArrayList<>();
    Map<String, List<Integer>> groups = new LinkedHashMap<>();
    Map<String, Double> constants = new LinkedHashMap<>();
    List<Path> schemas = new ArrayList<>();
    for (int i = 0; i < argv.size(); i++) {
      String a = argv.get(i);
      if (!a.startsWith("-")) {
        files.add(dir.resolve(a));
        continue;
      }
      String value = argv.get(++i);
      String[] kv = value.split("=", 2);
      switch (a) {
        case "--constant" -> constants.put(kv[0], Double.parseDouble(kv[1]));
        case "--group" ->
            groups.put(
                kv[0], Stream.of(kv[1].split(",")).map(s -> Integer.parseInt(s.strip())).toList());
        case "--schemas" -> schemas.add(dir.resolve(value));
        default ->
            throw new AssertionError(dir.resolve("expected.json") + ": unknown import option " + a);
      }
    }
    return new Parsed(files, new ImportOptions(groups, constants, schemas));
  }

  @Override
  public String toString() {
    return name;
  }
}
