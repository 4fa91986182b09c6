package dev.entangle.batch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.entangle.graph.JsonFiles;
import dev.entangle.util.InputException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Writes a manifest for folders of cases laid out as {@code examples/} and the shared real-world
 * cases are: each subfolder holding an {@code expected.json} (its {@code verdict}, {@code a|b} for
 * either, an optional {@code operator} and {@code note}, and, for printed code or HLO text to
 * import, {@code import_gs} and {@code import_gd}: the arguments of {@code entangle import}) is a
 * case, with {@code gs.json}/{@code gd.json} where the folder has them and the import otherwise,
 * and {@code ri.json} as its relation. Paths are written relative to the manifest's folder.
 */
public final class CaseFolders {
  private static final ObjectMapper MAPPER = JsonFiles.mapper();

  private CaseFolders() {}

  /**
   * The manifest of every case under {@code roots}, in folder-name order per root.
   *
   * @param name the manifest's name
   * @param manifestFolder the folder the manifest will be written to
   */
  public static ObjectNode manifest(String name, List<Path> roots, Path manifestFolder) {
    ObjectNode root = MAPPER.createObjectNode();
    root.put("format", ManifestReader.FORMAT);
    root.put("name", name);
    ArrayNode cases = root.putArray("cases");
    Set<String> names = new HashSet<>();
    Path base = manifestFolder.toAbsolutePath().normalize();
    for (Path r : roots) {
      List<Path> dirs = caseFolders(r);
      if (dirs.isEmpty()) {
        throw new InputException(
            r + " holds no case folder (a folder with expected.json); give a folder of cases.");
      }
      for (Path dir : dirs) {
        String caseName = dir.getFileName().toString();
        if (!names.add(caseName)) {
          throw new InputException(
              "two case folders are named " + caseName + "; give folders whose cases differ.");
        }
        cases.add(caseOf(caseName, dir, base));
      }
    }
    return root;
  }

  private static List<Path> caseFolders(Path root) {
    if (!Files.isDirectory(root)) {
      throw new InputException("cannot read the folder " + root + ": it does not exist.");
    }
    try (Stream<Path> s = Files.list(root)) {
      return s.filter(d -> Files.isRegularFile(d.resolve("expected.json"))).sorted().toList();
    } catch (IOException e) {
      throw new InputException("cannot read the folder " + root + ": " + JsonFiles.reason(e) + ".");
    }
  }

  private static ObjectNode caseOf(String name, Path dir, Path base) {
    Path expectedFile = dir.resolve("expected.json");
    JsonNode expected = JsonFiles.read(expectedFile, "expected.json");
    ObjectNode c = MAPPER.createObjectNode();
    c.put("name", name);
    c.set("gs", side(dir, "gs.json", expected.get("import_gs"), expectedFile, base));
    c.set("gd", side(dir, "gd.json", expected.get("import_gd"), expectedFile, base));
    c.put("rel", rel(dir.resolve("ri.json"), base));
    JsonNode verdict = expected.get("verdict");
    if (verdict == null || !verdict.isTextual()) {
      throw new InputException(
          expectedFile + ": no \"verdict\"; give the verdict the case must reach.");
    }
    c.put("expect", verdict.textValue());
    if (expected.hasNonNull("operator")) {
      c.put("operator", expected.get("operator").asText());
    }
    if (expected.hasNonNull("note")) {
      c.put("note", expected.get("note").asText());
    }
    return c;
  }

  private static JsonNode side(Path dir, String json, JsonNode argv, Path expectedFile, Path base) {
    if (Files.isRegularFile(dir.resolve(json))) {
      return MAPPER.getNodeFactory().textNode(rel(dir.resolve(json), base));
    }
    if (argv == null || !argv.isArray() || argv.isEmpty()) {
      throw new InputException(
          dir + " has no " + json + " and " + expectedFile + " gives no import arguments for it.");
    }
    ObjectNode spec = MAPPER.createObjectNode();
    ArrayNode files = spec.putArray("import");
    for (int i = 0; i < argv.size(); i++) {
      String a = argv.get(i).asText();
      if (!a.startsWith("-")) {
        files.add(rel(dir.resolve(a), base));
        continue;
      }
      if (i + 1 >= argv.size()) {
        throw new InputException(expectedFile + ": " + a + " has no value.");
      }
      String v = argv.get(++i).asText();
      int eq = v.indexOf('=');
      switch (a) {
        case "--constant" -> {
          if (eq <= 0) {
            throw new InputException(expectedFile + ": --constant " + v + " is not NAME=VALUE.");
          }
          spec.with("constants").put(v.substring(0, eq), number(v.substring(eq + 1), expectedFile));
        }
        case "--group" -> {
          if (eq <= 0) {
            throw new InputException(expectedFile + ": --group " + v + " is not NAME=R,R,....");
          }
          ArrayNode ranks = spec.with("groups").putArray(v.substring(0, eq));
          for (String r : v.substring(eq + 1).split(",")) {
            ranks.add((int) number(r, expectedFile));
          }
        }
        case "--schemas" -> spec.withArray("schemas").add(rel(dir.resolve(v), base));
        case "--format" -> spec.put("format", v);
        case "--ranks" -> spec.put("ranks", (int) number(v, expectedFile));
        default ->
            throw new InputException(
                expectedFile
                    + ": unknown import option "
                    + a
                    + " (known: --constant, --group,"
                    + " --schemas, --format, --ranks).");
      }
    }
    return spec;
  }

  private static double number(String s, Path where) {
    try {
      return Double.parseDouble(s.strip());
    } catch (NumberFormatException e) {
      throw new InputException(where + ": '" + s + "' is not a number.");
    }
  }

  private static String rel(Path file, Path base) {
    return base.relativize(file.toAbsolutePath().normalize()).toString();
  }

  /**
   * The names of the case folders under {@code roots}, in the order {@link #manifest} lists them.
   */
  public static List<String> names(List<Path> roots) {
    List<String> out = new ArrayList<>();
    for (Path r : roots) {
      caseFolders(r).forEach(d -> out.add(d.getFileName().toString()));
    }
    return out;
  }
}
