package dev.entangle.importer.hlo;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An HLO module as printed: named computations, one of them the {@code ENTRY}.
 *
 * @param name the module's name
 * @param attributes the header's attributes as raw text ({@code replica_count}, {@code
 *     num_partitions}, {@code entry_computation_layout}, ...)
 * @param computations every computation by name, in print order
 * @param entry the entry computation
 * @param source the file it was read from, for messages
 */
public record HloModule(
    String name,
    Map<String, String> attributes,
    Map<String, HloComputation> computations,
    HloComputation entry,
    String source) {
  public HloModule {
    attributes = Collections.unmodifiableMap(new LinkedHashMap<>(attributes));
    computations = Collections.unmodifiableMap(new LinkedHashMap<>(computations));
  }

  /** The computation of this name, or null. */
  public HloComputation computation(String computationName) {
    return computations.get(computationName);
  }
}
