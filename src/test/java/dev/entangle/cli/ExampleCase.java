package dev.entangle.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * A case under {@code examples/}: a folder with {@code gs.json}, {@code gd.json}, {@code ri.json}
 * and {@code expected.json}.
 *
 * @param name the folder's name
 * @param dir the folder
 * @param expected the parsed {@code expected.json}
 */
public record ExampleCase(String name, Path dir, JsonNode expected) {
  static final ObjectMapper JSON = new ObjectMapper();

  /** Every folder of {@code examples/} that holds an {@code expected.json}, by name. */
  public static List<ExampleCase> all() {
    Path examples = CliRun.PROJECT_ROOT.resolve("examples");
    List<ExampleCase> cases = new ArrayList<>();
    try (Stream<Path> dirs = Files.list(examples)) {
      for (Path dir : dirs.filter(Files::isDirectory).sorted().toList()) {
        Path expected = dir.resolve("expected.json");
        if (Files.exists(expected)) {
          cases.add(
              new ExampleCase(dir.getFileName().toString(), dir, JSON.readTree(expected.toFile())));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (cases.isEmpty()) {
      throw new AssertionError("no example cases under " + examples);
    }
    return cases;
  }

  /** The cases whose expected verdict is {@code refines}. */
  public static List<ExampleCase> refining() {
    return all().stream().filter(ExampleCase::refines).toList();
  }

  public Path gs() {
    return dir.resolve("gs.json");
  }

  public Path gd() {
    return dir.resolve("gd.json");
  }

  public Path ri() {
    return dir.resolve("ri.json");
  }

  /** The verdicts {@code expected.json} accepts ({@code a|b} means either). */
  public List<String> verdicts() {
    return List.of(expected.get("verdict").asText().split("\\|"));
  }

  public boolean refines() {
    return verdicts().equals(List.of("refines"));
  }

  /** The G_s operator a failure must name, or null when {@code expected.json} gives none. */
  public String operator() {
    JsonNode op = expected.get("operator");
    return op == null ? null : op.asText();
  }

  /** {@code entangle check} on this case, with extra arguments. */
  public CliRun check(Object... extra) {
    return CliRun.check(gs(), gd(), ri(), extra);
  }

  @Override
  public String toString() {
    return name;
  }
}
