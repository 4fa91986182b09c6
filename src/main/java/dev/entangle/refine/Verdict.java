package dev.entangle.refine;

/** The outcome of a check, with its name in reports (FORMATS.md section 4). */
public enum Verdict {
  REFINES("refines"),
  NOT_REFINED("not-refined"),
  EXPECTATION_VIOLATED("expectation-violated"),
  INCONCLUSIVE("inconclusive");

  private final String json;

  Verdict(String json) {
    this.json = json;
  }

  /** The verdict's name in reports, e.g. {@code not-refined}. */
  public String json() {
    return json;
  }
}
