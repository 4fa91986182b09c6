package dev.entangle.refine;

/** Which limit ended an operator's check before a proof. */
public enum Limit {
  /** The e-graph grew past the node limit. */
  NODES,
  /** The check's time ran out. */
  TIME,
  /** A saturation reached its iteration limit. */
  ITERATIONS,
  /** More G_d values were brought in than the exploration limit allows. */
  EXPLORATION
}
