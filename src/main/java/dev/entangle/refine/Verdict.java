package dev.entangle.refine;

/** The outcome of a check, with its exit code and its name in the JSON report (FORMATS.md section 4). */
public enum Verdict {
  REFINES("refines", 0),
  NOT_REFINED("not-refined", 1),
  EXPECTATION_VIOLATED("expectation-violated", 1),
  INCONCLUSIVE("inconclusive", 3);

  private final String json;
  private final int exitCode;

  Verdict(String json, int exitCode) {
    this.json = json;
    this.exitCode = exitCode;
  }

  public String json() {
    return json;
  }

  public int exitCode() {
    return exitCode;
  }
}
