package dev.entangle.numbers.sampling;

import dev.entangle.core.numeric.Tensor;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Inputs of G_s and of every rank of G_d that satisfy an input relation, by node name: graph
 * inputs, and the tensors the relation names (cut points, whose values replace what the graphs
 * compute).
 *
 * @param seed the seed they were drawn with; the same seed draws the same inputs
 * @param gs G_s values by node name
 * @param gd rank k's values by node name at index k
 */
public record SampledInputs(long seed, Map<String, Tensor> gs, List<Map<String, Tensor>> gd) {
  public SampledInputs {
    gs = Collections.unmodifiableMap(new LinkedHashMap<>(gs));
    gd = gd.stream().map(m -> Collections.unmodifiableMap(new LinkedHashMap<>(m))).toList();
  }
}
