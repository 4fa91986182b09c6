package dev.entangle.egraph;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The outcome of a {@link Runner} run.
 *
 * @param stopReason why the run ended
 * @param iterations the iterations started
 * @param applications per rule, in rule order: how many matches changed the e-graph
 * @param nodeCount the e-graph's node count at the end
 * @param classCount the e-graph's class count at the end
 * @param elapsed the wall-clock time of the run
 */
public record RunReport(
    StopReason stopReason,
    int iterations,
    Map<String, Integer> applications,
    int nodeCount,
    int classCount,
    Duration elapsed) {
  public RunReport {
    applications = Collections.unmodifiableMap(new LinkedHashMap<>(applications));
  }

  /** Whether the run saturated: the rules can prove nothing more. */
  public boolean saturated() {
    return stopReason == StopReason.SATURATED;
  }

  /** Whether a resource limit (iterations, nodes, time) ended the run. */
  public boolean hitLimit() {
    return stopReason != StopReason.SATURATED && stopReason != StopReason.GOAL_REACHED;
  }
}
