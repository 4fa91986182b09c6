package dev.entangle.egraph;

import java.util.Collections;
import java.util.List;

/**
 * The outcome of a {@link Runner} run: why it stopped, how many iterations it started and how often
 * each rewrite changed the e-graph.
 *
 * @param stopReason why the run ended
 * @param iterations the iterations started
 * @param applied per rewrite, in the order of {@link #names}: how many matches merged classes
 * @param names the rewrites' names
 */
public record RunReport(StopReason stopReason, int iterations, int[] applied, List<String> names) {
  public RunReport {
    applied = applied.clone();
    names = Collections.unmodifiableList(names);
  }

  /** Whether the run saturated: the rewrites can prove nothing more. */
  public boolean saturated() {
    return stopReason instanceof StopReason.Saturated;
  }

  /** Whether a resource limit (iterations, nodes, time) ended the run. */
  public boolean hitLimit() {
    return stopReason.isLimit();
  }

  /** How often rewrite {@code i} merged classes. */
  public int applied(int i) {
    return applied[i];
  }
}
