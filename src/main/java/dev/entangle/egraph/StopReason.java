package dev.entangle.egraph;

/**
 * Why growing an e-graph stopped: a {@link Runner} run's end, or the exploration bound of a caller
 * that adds terms between runs (the refinement check's). A limit carries the bound it reached.
 */
public sealed interface StopReason {
  /** See {@link Saturated}. */
  StopReason SATURATED = new Saturated();

  /** See {@link GoalReached}. */
  StopReason GOAL_REACHED = new GoalReached();

  /** See {@link TimeLimit}. */
  StopReason TIME_LIMIT = new TimeLimit();

  /** Whether a resource limit ended the growth (every reason but saturation and the goal). */
  boolean isLimit();

  /** The reason's name, in capitals, as the trace for lemma authors prints it. */
  String name();

  /** An iteration changed nothing and no rule was held back by the match cap. */
  record Saturated() implements StopReason {
    @Override
    public boolean isLimit() {
      return false;
    }

    @Override
    public String name() {
      return "SATURATED";
    }
  }

  /** The caller's stop condition held (for example, the goal classes were merged). */
  record GoalReached() implements StopReason {
    @Override
    public boolean isLimit() {
      return false;
    }

    @Override
    public String name() {
      return "GOAL_REACHED";
    }
  }

  /**
   * The iteration limit was reached.
   *
   * @param iterations the limit: how many iterations ran
   */
  record IterationLimit(int iterations) implements StopReason {
    @Override
    public boolean isLimit() {
      return true;
    }

    @Override
    public String name() {
      return "ITERATION_LIMIT";
    }
  }

  /**
   * The e-graph grew past the node limit.
   *
   * @param nodes the limit: most e-nodes
   */
  record NodeLimit(int nodes) implements StopReason {
    @Override
    public boolean isLimit() {
      return true;
    }

    @Override
    public String name() {
      return "NODE_LIMIT";
    }
  }

  /** The time limit or deadline passed. */
  record TimeLimit() implements StopReason {
    @Override
    public boolean isLimit() {
      return true;
    }

    @Override
    public String name() {
      return "TIME_LIMIT";
    }
  }

  /**
   * The caller brought more values into the e-graph than its exploration limit allows (no run ends
   * with it).
   *
   * @param values the limit: most values brought in
   */
  record ExplorationLimit(int values) implements StopReason {
    @Override
    public boolean isLimit() {
      return true;
    }

    @Override
    public String name() {
      return "EXPLORATION_LIMIT";
    }
  }
}
