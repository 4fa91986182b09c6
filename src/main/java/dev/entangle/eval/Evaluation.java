package dev.entangle.eval;

import dev.entangle.core.numeric.Tensor;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The values of one evaluation of G_s or G_d: every node with one tensor result, by rank (-1 for
 * G_s) and node name, in the order they were computed; and, when the budget ran out, why and where.
 */
public final class Evaluation {
  /** One node's value. */
  public record Entry(int rank, String node, Value value) {
    /** {@code rK.NAME} for G_d, the plain name for G_s. */
    public String label() {
      return rank < 0 ? node : "r" + rank + "." + node;
    }
  }

  /**
   * Where evaluation stopped for lack of budget.
   *
   * @param at the first node not computed, as {@code rK.NAME} or a G_s name
   * @param reason the budget's own account of what did not fit
   * @param skipped how many nodes got no value because of it
   */
  public record Stop(String at, String reason, int skipped) {}

  private final Map<String, Entry> byKey = new LinkedHashMap<>();
  private final Stop stop;

  Evaluation(List<Entry> entries, Stop stop) {
    for (Entry e : entries) {
      byKey.put(key(e.rank(), e.node()), e);
    }
    this.stop = stop;
  }

  private static String key(int rank, String node) {
    return rank + "/" + node;
  }

  /** Every value, in evaluation order. */
  public List<Entry> entries() {
    return Collections.unmodifiableList(new ArrayList<>(byKey.values()));
  }

  /** The value of a node (rank -1 for G_s), or null when the node has no single tensor value. */
  public Value value(int rank, String node) {
    Entry e = byKey.get(key(rank, node));
    return e == null ? null : e.value();
  }

  /** The tensor of a node, when it was computed. */
  public Optional<Tensor> tensor(int rank, String node) {
    Value v = value(rank, node);
    return Optional.ofNullable(v == null ? null : v.tensorOrNull());
  }

  /** Where the budget ran out, if it did. */
  public Optional<Stop> stopped() {
    return Optional.ofNullable(stop);
  }
}
