package dev.entangle.cli;

import dev.entangle.core.CoreProgram;
import dev.entangle.lower.TermText;
import dev.entangle.numbers.UserLemmas;
import dev.entangle.refine.CheckResult;
import dev.entangle.refine.Evidence;
import dev.entangle.refine.Numbers;
import dev.entangle.util.Names;
import java.io.PrintWriter;
import java.util.Arrays;
import java.util.List;

/**
 * {@code --certify}: every entry of a {@code refines} verdict's output relation is evaluated on
 * random inputs; one that does not hold is a bug in entangle (a wrong lemma or lowering), or in a
 * user's lemma when the proof used one, reported loudly.
 */
final class Certificate {
  private Certificate() {}

  /**
   * Whether every entry holds on numbers (or could not be evaluated, which is said on {@code err}).
   */
  static boolean holds(
      CheckResult result,
      Numbers numbers,
      CoreProgram gs,
      TermText text,
      PrintWriter err,
      List<UserLemmas.Lemma> userLemmas) {
    boolean ok = true;
    boolean evaluated = true;
    int draws = 0;
    long seed = 0;
    for (CheckResult.OutputEntry e : result.outputRelation()) {
      Evidence ev = numbers.compare(e.gs(), e.gd());
      String entry = gs.value(e.gs()).name() + " = " + text.relation(e.gd());
      if (ev instanceof Evidence.Witness w) {
        String blame =
            userLemmas.isEmpty()
                ? "this is a bug in entangle; please report it with the input files."
                : "the proof used your lemma"
                    + (userLemmas.size() == 1 ? " " : "s ")
                    + String.join(
                        ", ", userLemmas.stream().map(UserLemmas.Lemma::toString).toList())
                    + (userLemmas.size() == 1 ? ", which is" : ", and one of them is")
                    + " false: fix or remove it (check its folder with 'entangle lemmas check"
                    + " DIR', with cases that name it).";
        err.println(
            "entangle: certificate violated: "
                + blame
                + " The output relation entry "
                + Names.shorten(entry)
                + " is false on random inputs (seed "
                + w.seed()
                + "): at "
                + Arrays.toString(w.index())
                + " G_s has "
                + w.gs()
                + " but the expression gives "
                + w.gd()
                + " ("
                + w.differing()
                + " element(s) differ).");
        ok = false;
      } else if (ev instanceof Evidence.NotRun n) {
        err.println("entangle: the certificate was not checked on numbers: " + n.reason() + ".");
        evaluated = false;
        break;
      } else if (ev instanceof Evidence.Candidate c) {
        draws = c.draws();
        seed = c.seed();
      }
    }
    if (ok && evaluated) {
      err.println(
          "entangle: certified: each of the "
              + result.outputRelation().size()
              + " entries of the output relation holds on random inputs"
              + (draws > 0 ? " (" + draws + " draws, seed " + seed + ")" : "")
              + ".");
    }
    err.flush();
    return ok;
  }
}
