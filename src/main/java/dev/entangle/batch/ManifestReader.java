package dev.entangle.batch;

import com.fasterxml.jackson.databind.JsonNode;
import dev.entangle.check.CheckSettings;
import dev.entangle.graph.JsonFiles;
import dev.entangle.util.InputException;
import dev.entangle.util.Names;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads a batch manifest ({@code "format": "entangle-batch/1"}; README, "Batch runs"). Paths are
 * relative to the manifest's folder and must exist. Every error is an {@link InputException} naming
 * the file and the entry ({@code cases[3] (name "mlp-tp2")}); remarks ({@code comment}, {@code
 * note}, keys starting with {@code _}) are ignored.
 */
public final class ManifestReader {
  /** The format this version reads. */
  public static final String FORMAT = "entangle-batch/1";

  /** The verdicts an expectation may name. */
  public static final List<String> VERDICTS =
      List.of(
          "refines",
          "not-refined",
          "expectation-violated",
          "inconclusive",
          "unproved",
          "unsupported");

  private static final Set<String> TOP_KEYS = Set.of("format", "name", "cases");
  private static final Set<String> CASE_KEYS =
      Set.of("name", "gs", "gd", "rel", "expect", "operator", "timeout");
  private static final Set<String> IMPORT_KEYS =
      Set.of("import", "format", "ranks", "groups", "constants", "schemas");

  private final Path file;
  private final Path folder;

  private ManifestReader(Path file, Path folder) {
    this.file = file;
    this.folder = folder;
  }

  /** Reads and resolves a manifest. */
  public static Manifest read(Path file) {
    Path parent = file.getParent();
    return new ManifestReader(file, parent == null ? Path.of("") : parent)
        .manifest(JsonFiles.read(file, "batch manifest"));
  }

  /**
   * The manifest of folders of case folders ({@link CaseFolders}), named after the first folder;
   * its paths are relative to the working directory.
   */
  public static Manifest ofFolders(List<Path> roots) {
    Path first = roots.get(0).toAbsolutePath().normalize();
    String name = first.getFileName() == null ? "cases" : first.getFileName().toString();
    JsonNode json = CaseFolders.manifest(name, roots, Path.of(""));
    return new ManifestReader(roots.get(0), Path.of("")).manifest(json);
  }

  private Manifest manifest(JsonNode root) {
    if (!root.isObject()) {
      throw error("", "a batch manifest is a JSON object with \"format\" and \"cases\".");
    }
    checkKeys(root, TOP_KEYS, "");
    JsonNode format = root.get("format");
    if (format == null || !format.isTextual() || !format.textValue().equals(FORMAT)) {
      throw error(
          "",
          (format == null ? "missing \"format\"" : "unknown format " + format)
              + "; a batch manifest starts with \"format\": \""
              + FORMAT
              + "\".");
    }
    String name = defaultName();
    if (root.has("name")) {
      name = text(root, "name", "", "the manifest's name");
    }
    JsonNode cases = root.get("cases");
    if (cases == null || !cases.isArray() || cases.isEmpty()) {
      throw error("", "\"cases\" must be a non-empty list of cases.");
    }
    List<BatchCase> out = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (int i = 0; i < cases.size(); i++) {
      BatchCase c = batchCase(cases.get(i), i);
      if (!names.add(c.name())) {
        throw error(where(i, c.name()), "another case has the same name; give each case its own.");
      }
      out.add(c);
    }
    return new Manifest(file, name, out);
  }

  private BatchCase batchCase(JsonNode json, int i) {
    if (!json.isObject()) {
      throw error(
          "cases[" + i + "]",
          "a case is an object with \"name\", \"gs\", \"gd\", \"rel\" and \"expect\", not "
              + json
              + ".");
    }
    String where = "cases[" + i + "]";
    String name = text(json, "name", where, "the case's name");
    where = where(i, name);
    checkKeys(json, CASE_KEYS, where);
    GraphSource gs = source(json, "gs", where);
    GraphSource gd = source(json, "gd", where);
    Path rel = path(text(json, "rel", where, "the relation file"), where + ": rel");
    Expectation expect =
        new Expectation(verdicts(json.get("expect"), where), operator(json, where));
    Double timeout = null;
    if (json.has("timeout")) {
      JsonNode t = json.get("timeout");
      if (!t.isNumber()
          || !(t.doubleValue() > 0 && t.doubleValue() <= CheckSettings.MAX_TIMEOUT_SECONDS)) {
        throw error(
            where,
            "\"timeout\" must be a positive number of seconds, at most "
                + (long) CheckSettings.MAX_TIMEOUT_SECONDS
                + ", not "
                + Names.shorten(t.toString())
                + ".");
      }
      timeout = t.doubleValue();
    }
    return new BatchCase(i, name, gs, gd, rel, expect, timeout);
  }

  private String operator(JsonNode json, String where) {
    if (!json.has("operator") || json.get("operator").isNull()) {
      return null;
    }
    return text(json, "operator", where, "the G_s operator a failure must name");
  }

  private List<String> verdicts(JsonNode json, String where) {
    List<String> out = new ArrayList<>();
    if (json == null) {
      throw error(
          where,
          "the case has no \"expect\"; give the verdict it must reach, e.g. \"refines\" or"
              + " \"not-refined|expectation-violated\".");
    }
    if (json.isTextual()) {
      out.addAll(List.of(json.textValue().split("\\|", -1)));
    } else if (json.isArray()) {
      json.forEach(v -> out.add(v.isTextual() ? v.textValue() : v.toString()));
    }
    if (out.isEmpty() || !VERDICTS.containsAll(out)) {
      throw error(
          where,
          "\"expect\" must name verdicts among "
              + String.join(", ", VERDICTS)
              + " (a string such as \"not-refined|expectation-violated\", or a list), not "
              + Names.shorten(json.toString())
              + ".");
    }
    return out;
  }

  private GraphSource source(JsonNode json, String key, String where) {
    JsonNode v = json.get(key);
    String at = where + ": " + key;
    if (v != null && v.isTextual()) {
      return new GraphSource.GraphFile(path(v.textValue(), at));
    }
    if (v == null || !v.isObject()) {
      throw error(
          where,
          "\""
              + key
              + "\" must be a graph file or an object {\"import\": [FILES...], ...}, not "
              + v
              + ".");
    }
    checkKeys(v, IMPORT_KEYS, at);
    JsonNode files = v.get("import");
    if (files == null || !files.isArray() || files.isEmpty()) {
      throw error(at, "\"import\" must list the files to import, rank 0's first.");
    }
    List<Path> paths = new ArrayList<>();
    for (JsonNode f : files) {
      if (!f.isTextual()) {
        throw error(at, "an imported file is a path string, not " + f + ".");
      }
      paths.add(path(f.textValue(), at));
    }
    Boolean hlo = null;
    if (v.has("format")) {
      String format = text(v, "format", at, "the files' format");
      if (!format.equals("fx") && !format.equals("hlo")) {
        throw error(
            at, "\"format\" must be fx (printed torch.fx code) or hlo, not " + format + ".");
      }
      hlo = format.equals("hlo");
    }
    Integer ranks = null;
    if (v.has("ranks")) {
      JsonNode r = v.get("ranks");
      if (!r.canConvertToInt() || !r.isIntegralNumber() || r.intValue() < 1) {
        throw error(at, "\"ranks\" must be a positive integer, not " + r + ".");
      }
      ranks = r.intValue();
    }
    return new GraphSource.Imported(
        paths,
        hlo,
        ranks,
        groups(v.get("groups"), at),
        constants(v.get("constants"), at),
        schemas(v.get("schemas"), at));
  }

  private Map<String, List<Integer>> groups(JsonNode json, String at) {
    Map<String, List<Integer>> out = new LinkedHashMap<>();
    if (json == null) {
      return out;
    }
    if (!json.isObject()) {
      throw error(at, "\"groups\" maps a group name to its ranks, e.g. {\"tp\": [0, 1]}.");
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = json.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      List<Integer> ranks = new ArrayList<>();
      if (!e.getValue().isArray()) {
        throw error(at, "group \"" + e.getKey() + "\" must list its ranks, e.g. [0, 1].");
      }
      for (JsonNode r : e.getValue()) {
        if (!r.isIntegralNumber() || !r.canConvertToInt()) {
          throw error(at, "group \"" + e.getKey() + "\": " + r + " is not a rank number.");
        }
        ranks.add(r.intValue());
      }
      out.put(e.getKey(), ranks);
    }
    return out;
  }

  private Map<String, Double> constants(JsonNode json, String at) {
    Map<String, Double> out = new LinkedHashMap<>();
    if (json == null) {
      return out;
    }
    if (!json.isObject()) {
      throw error(
          at, "\"constants\" maps a constant to its value, e.g. {\"_tensor_constant0\": 0}.");
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = json.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      if (!e.getValue().isNumber()) {
        throw error(
            at, "constant \"" + e.getKey() + "\" must be a number, not " + e.getValue() + ".");
      }
      out.put(e.getKey(), e.getValue().doubleValue());
    }
    return out;
  }

  private List<Path> schemas(JsonNode json, String at) {
    List<Path> out = new ArrayList<>();
    if (json == null) {
      return out;
    }
    if (!json.isArray()) {
      throw error(at, "\"schemas\" must list schema files.");
    }
    for (JsonNode s : json) {
      if (!s.isTextual()) {
        throw error(at, "a schema file is a path string, not " + s + ".");
      }
      out.add(path(s.textValue(), at));
    }
    return out;
  }

  /**
   * A case's file, relative to the manifest's folder. Whether it exists is the case's business: a
   * case whose file is missing is reported in its row, and the other cases go on.
   */
  private Path path(String text, String at) {
    try {
      return folder.resolve(text).normalize();
    } catch (InvalidPathException e) {
      throw error(
          at, "\"" + Names.shorten(text) + "\" is not a valid path (" + e.getReason() + ").");
    }
  }

  private String text(JsonNode json, String key, String where, String what) {
    JsonNode v = json.get(key);
    if (v == null || !v.isTextual() || v.textValue().isEmpty()) {
      throw error(
          where, "\"" + key + "\" must be " + what + " (a non-empty string), not " + v + ".");
    }
    return v.textValue();
  }

  private void checkKeys(JsonNode obj, Set<String> known, String where) {
    for (Iterator<String> it = obj.fieldNames(); it.hasNext(); ) {
      String key = it.next();
      if (!known.contains(key)
          && !key.equals("comment")
          && !key.equals("note")
          && !key.startsWith("_")) {
        throw error(
            where,
            "unknown key \""
                + key
                + "\"; the keys here are "
                + String.join(", ", known.stream().sorted().toList())
                + ".");
      }
    }
  }

  private String defaultName() {
    String n = file.getFileName().toString();
    return n.endsWith(".json") ? n.substring(0, n.length() - 5) : n;
  }

  private static String where(int i, String name) {
    return "cases[" + i + "] (name \"" + name + "\")";
  }

  private InputException error(String where, String problem) {
    return new InputException(file + ": " + (where.isEmpty() ? "" : where + ": ") + problem);
  }
}
