package dev.entangle.batch;

import java.util.List;

/**
 * What a case must give.
 *
 * @param verdicts the verdicts accepted (any of them)
 * @param operator the G_s operator a failure must name, or null for any
 */
public record Expectation(List<String> verdicts, String operator) {
  public Expectation {
    verdicts = List.copyOf(verdicts);
  }

  /**
   * Why a result does not meet this expectation, or null when it does.
   *
   * @param verdict the verdict reached ({@code refines}, {@code not-refined}, ...)
   * @param failing the G_s operator the failure names, or null
   */
  public String mismatch(String verdict, String failing) {
    if (!verdicts.contains(verdict)) {
      return "expected " + String.join(" or ", verdicts) + ", got " + verdict;
    }
    if (operator != null && !operator.equals(failing)) {
      return "expected the failure at "
          + operator
          + ", got it at "
          + (failing == null ? "no operator" : failing);
    }
    return null;
  }

  /** The verdicts joined as in {@code expected.json}: {@code a|b}. */
  public String verdictText() {
    return String.join("|", verdicts);
  }
}
