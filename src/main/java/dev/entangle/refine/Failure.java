package dev.entangle.refine;

import dev.entangle.core.CoreRelation;
import dev.entangle.core.CoreTerm;
import dev.entangle.egraph.StopReason;
import java.util.List;

/**
 * Where and why a check stopped short of {@code refines}, as values (the command line writes the
 * prose). {@link #operator} is a G_s operation id, values are ids of the programs' values.
 */
public sealed interface Failure {
  /**
   * The G_s operation the failure is reported at (-1 for a required output that is a G_s input).
   */
  int operator();

  /** For each input of the operation, the G_d terms it was related to. */
  List<InputRelation> inputs();

  /** The G_d values brought in for it (at most 60), in the order they came in. */
  List<Integer> explored();

  /**
   * An operation input and what R related it to.
   *
   * @param value the G_s value
   * @param gd its clean G_d terms (none when unrelated)
   * @param constant whether it is a constant (carried as its term, so unrelated by design)
   */
  record InputRelation(int value, List<CoreTerm> gd, boolean constant) {}

  /**
   * An output of the operation in terms of G_d, when no clean expression equals it.
   *
   * @param output the G_s value
   * @param gd the cheapest term over G_d values (not clean) that it equals
   */
  record OutputTerm(int output, CoreTerm gd) {}

  /**
   * An input of the operation is related to no G_d tensor (or has no defined value).
   *
   * @param input the G_s value
   * @param undefined whether the input has no defined value (a dropout mask, an empty buffer)
   * @param chainEnd the last operation of a deferred chain that failed with it, or -1
   */
  record MissingInput(
      int operator,
      int input,
      boolean undefined,
      int chainEnd,
      List<InputRelation> inputs,
      List<Integer> explored)
      implements Failure {}

  /**
   * No clean expression of G_d tensors equals the operation's output(s).
   *
   * @param terms for outputs with no clean expression, what they equal in G_d's terms
   * @param limit the limit reached first (nodes, time, iterations or exploration, with its bound),
   *     or null when the search ended without one
   * @param chainEnd the last operation of a deferred chain that failed with it, or -1
   * @param evidence the numbers about the first output without a clean expression, or null
   */
  record NoCleanExpression(
      int operator,
      int outputs,
      List<OutputTerm> terms,
      StopReason limit,
      int chainEnd,
      List<InputRelation> inputs,
      List<Integer> explored,
      Evidence evidence)
      implements Failure {}

  /**
   * A required G_s output maps to G_d tensors, but not to a clean expression over G_d's outputs.
   *
   * @param output the G_s value
   * @param equals what it equals in terms of G_d tensors, or null when nothing
   */
  record OutputNotReturned(
      int operator, int output, CoreTerm equals, List<InputRelation> inputs, Evidence evidence)
      implements Failure {
    @Override
    public List<Integer> explored() {
      return List.of();
    }
  }

  /**
   * The output relation exists but an expectation is not proved.
   *
   * @param expect the expectation
   * @param equals what its G_s value equals in terms of G_d tensors, or null when nothing
   */
  record ExpectationViolated(
      int operator,
      CoreRelation.Expect expect,
      CoreTerm equals,
      List<InputRelation> inputs,
      Evidence evidence)
      implements Failure {
    @Override
    public List<Integer> explored() {
      return List.of();
    }
  }

  /**
   * No lemma proved the operation's outputs, but numbers did: the first step the check took on
   * numbers alone (the verdict is {@code unproved}).
   *
   * @param assumption the step
   * @param unstated the G_s inputs of ids upstream of the step that the relation gives no range
   *     for, each with the range the numbers drew it from (a proof of a wrapped or masked lookup
   *     may rest on that range, which the relation must state)
   */
  record ProvedOnNumbers(
      int operator,
      Assumption assumption,
      List<InputRelation> inputs,
      List<Integer> explored,
      List<DrawnRange> unstated)
      implements Failure {}

  /** A G_s input of ids the relation states no range for, and the range its draws came from. */
  record DrawnRange(String input, long lo, long hi) {}

  /**
   * The check stopped where an operator the language keeps opaque (no lowering, no kernel) decides
   * the outcome: the failing operation is that operator, or it reads a value computed through one,
   * so neither a proof nor the numbers can tell a bug from a missing operator (the verdict is
   * {@code unsupported}).
   *
   * @param operator the G_s operation that uses the opaque operator (where {@code gdValue} is
   *     given: the one where the proof stopped)
   * @param opaque the opaque operator's target, e.g. {@code aten.foo.default}
   * @param gdValue when the opaque operator is G_d's, the first G_d value computed through it that
   *     the numbers needed; null when it is G_s's
   * @param stoppedAt the G_s operation where the proof stopped ({@code operator} or a later one
   *     that reads its result)
   * @param evidence why the numbers could not say, or null when they were not asked
   */
  record Unsupported(
      int operator,
      String opaque,
      String gdValue,
      int stoppedAt,
      List<InputRelation> inputs,
      List<Integer> explored,
      Evidence evidence)
      implements Failure {}

  /** The numbers behind the failure, or null when none were asked. */
  default Evidence evidence() {
    return null;
  }
}
