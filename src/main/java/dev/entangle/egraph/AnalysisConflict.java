package dev.entangle.egraph;

/**
 * Thrown by {@link Analysis#merge} when two classes that are being made equal carry contradictory
 * facts. When {@link EGraph#union} sees it, the e-graph is unchanged; when {@link EGraph#rebuild}
 * (or a run) sees it, the e-graph is left inconsistent and must be discarded.
 */
public class AnalysisConflict extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public AnalysisConflict(String message) {
    super(message);
  }
}
