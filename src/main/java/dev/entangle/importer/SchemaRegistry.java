package dev.entangle.importer;

import dev.entangle.util.InputException;
import dev.entangle.util.InputFiles;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The operator schemas the importer knows: the built-in {@code custom_ops.schema} resource, then
 * the user's schema files, a later declaration of an operator replacing an earlier one.
 */
final class SchemaRegistry {
  static final String RESOURCE = "custom_ops.schema";
  private static final Map<String, OpSchema> BUILT_IN = loadBuiltIn();

  private final Map<String, OpSchema> byTarget;

  private SchemaRegistry(Map<String, OpSchema> byTarget) {
    this.byTarget = Collections.unmodifiableMap(byTarget);
  }

  static SchemaRegistry load(List<Path> extraFiles) {
    Map<String, OpSchema> all = new LinkedHashMap<>(BUILT_IN);
    for (Path file : extraFiles) {
      if (!Files.exists(file)) {
        throw new InputException(
            file
                + ": the schema file does not exist. Give the path of a file with one operator"
                + " schema per line.");
      }
      String text = InputFiles.readText(file, "schema file");
      for (OpSchema s : SchemaParser.parseFile(text, file.toString())) {
        all.put(s.target(), s);
      }
    }
    return new SchemaRegistry(all);
  }

  /** The schema of an operator target such as {@code _C.rms_norm.default}, or null. */
  OpSchema find(String target) {
    return byTarget.get(target);
  }

  private static Map<String, OpSchema> loadBuiltIn() {
    try (InputStream in = SchemaRegistry.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + RESOURCE);
      }
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      Map<String, OpSchema> map = new LinkedHashMap<>();
      for (OpSchema s : SchemaParser.parseFile(text, RESOURCE)) {
        map.put(s.target(), s);
      }
      return map;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
