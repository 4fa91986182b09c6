package dev.entangle.egraph;

/**
 * A semilattice of facts attached to every e-class (types, shapes, constants), kept consistent by
 * the e-graph: {@link #make} computes a new node's fact, {@link #merge} joins the facts of two
 * classes found equal, and {@link #modify} reacts when a class's fact changes.
 *
 * <p>Facts are compared with {@link Object#equals} to decide whether a merge changed anything, so
 * {@code D} should be a value type (records work well). Facts may be null.
 *
 * @param <D> the fact type
 */
public interface Analysis<D> {
  /**
   * The fact for a node about to be added; its children are canonical and their facts are available
   * through {@link EGraph#data}.
   */
  D make(EGraph<D> g, ENode n);

  /**
   * Joins the facts of two classes being merged.
   *
   * @throws AnalysisConflict when the facts contradict each other (the classes cannot be equal)
   */
  D merge(D a, D b);

  /**
   * Called after a class is created or its fact changes; may add nodes and union classes (for
   * example to add a constant node to a class whose value is known).
   */
  default void modify(EGraph<D> g, int classId) {}

  /** The analysis that tracks nothing: every fact is null. */
  static Analysis<Void> none() {
    return NoAnalysis.INSTANCE;
  }
}
