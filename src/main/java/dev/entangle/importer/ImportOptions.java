package dev.entangle.importer;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code entangle import} needs besides the files themselves.
 *
 * @param groups process group name (as the collectives print it, e.g. {@code '12'} or {@code
 *     'tp:0'}) to its member ranks; only used when importing several ranks
 * @param constants value of each 0-d {@code get_attr} tensor constant the printed code does not
 *     show, by attribute name (e.g. {@code _tensor_constant0})
 * @param extraSchemas files of custom operator schemas, one per line in PyTorch's syntax, added to
 *     (and overriding) the built-in ones; needed for {@code auto_functionalized} calls of operators
 *     the importer does not know
 */
public record ImportOptions(
    Map<String, List<Integer>> groups, Map<String, Double> constants, List<Path> extraSchemas) {

  public ImportOptions {
    Map<String, List<Integer>> g = new LinkedHashMap<>();
    if (groups != null) {
      groups.forEach((name, ranks) -> g.put(name, List.copyOf(ranks)));
    }
    groups = Collections.unmodifiableMap(g);
    constants =
        Collections.unmodifiableMap(
            constants == null ? new LinkedHashMap<>() : new LinkedHashMap<>(constants));
    extraSchemas = extraSchemas == null ? List.of() : List.copyOf(extraSchemas);
  }

  /** No groups, no constants, only the built-in schemas. */
  public static ImportOptions defaults() {
    return new ImportOptions(Map.of(), Map.of(), List.of());
  }
}
