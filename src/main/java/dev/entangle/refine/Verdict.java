package dev.entangle.refine;

/** The outcome of a check, with its name in reports (docs/formats.md, Verdicts). */
public enum Verdict {
  REFINES("refines"),
  NOT_REFINED("not-refined"),
  EXPECTATION_VIOLATED("expectation-violated"),
  INCONCLUSIVE("inconclusive"),
  /**
   * No proof, but no evidence of a bug either: the values no lemma reached equal clean expressions
   * of G_d on every random draw (a gap in the lemmas, not, on this evidence, in the model).
   */
  UNPROVED("unproved"),
  /**
   * The check stopped at an operator the language cannot lower, decompose or evaluate (kept
   * opaque): neither a proof nor the numbers can tell whether G_d computes it. Never reported as
   * {@code refines} or {@code not-refined}.
   */
  UNSUPPORTED("unsupported");

  private final String json;

  Verdict(String json) {
    this.json = json;
  }

  /** The verdict's name in reports, e.g. {@code not-refined}. */
  public String json() {
    return json;
  }
}
