package dev.entangle.importer.hlo;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An HLO module as printed: named computations, one of them the {@code ENTRY}.
 *
 * @param name the module's name
 * @param computations every computation by name, in print order
 * @param entry the entry computation
 * @param source the file it was read from, for messages
 */
public record HloModule(
    String name, Map<String, HloComputation> computations, HloComputation entry, String source) {
  public HloModule {
    computations = Collections.unmodifiableMap(new LinkedHashMap<>(computations));
  }

  /** The computation of this name, or null. */
  public HloComputation computation(String computationName) {
    return computations.get(computationName);
  }
}
