package dev.entangle.egraph;

/** Why a {@link Runner} run ended. */
public enum StopReason {
  /** An iteration changed nothing and no rule was held back by the match cap. */
  SATURATED,
  /** The iteration limit was reached. */
  ITERATION_LIMIT,
  /** The e-graph grew past the node limit. */
  NODE_LIMIT,
  /** The time limit or deadline passed. */
  TIME_LIMIT,
  /** The caller's stop condition held (for example, the goal classes were merged). */
  GOAL_REACHED
}
