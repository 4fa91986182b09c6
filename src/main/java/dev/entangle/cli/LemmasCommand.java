package dev.entangle.cli;

import dev.entangle.numbers.LemmaCheck;
import dev.entangle.numbers.LemmaNumbers;
import dev.entangle.rules.LemmaCase;
import dev.entangle.rules.LemmaLibrary;
import dev.entangle.rules.Lemmas;
import dev.entangle.util.InputException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code entangle lemmas check DIR}: a folder of lemma files of one's own, checked on numbers
 * before it is trusted.
 */
@Command(
    name = "lemmas",
    mixinStandardHelpOptions = true,
    description = "Works with lemma files.",
    subcommands = {LemmasCommand.Check.class})
final class LemmasCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "name a subcommand: check");
  }

  @Command(
      name = "check",
      mixinStandardHelpOptions = true,
      description =
          "Checks every lemma of the *.lemmas files in DIR on numbers: each is applied alone to the terms of the"
              + " cases in DIR's *.cases files that name it and to random terms, and every equality it makes must"
              + " hold on random values. Exit 0 when all hold, 1 when one is false or never applied"
              + " (unless --allow-untested), 2 for bad input (a malformed lemma or case).")
  static final class Check implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Parameters(
        paramLabel = "DIR",
        description = "a folder of *.lemmas files (and optional *.cases files)")
    Path dir;

    @Option(
        names = "--seed",
        paramLabel = "N",
        defaultValue = "1",
        description = "seed of the random terms and values (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(
        names = "--allow-untested",
        description =
            "exit 0 although a lemma was never applied to the terms tried (it is then unchecked)")
    boolean allowUntested;

    @Override
    public Integer call() {
      Lemmas lemmas = LemmaLibrary.load(List.of(dir));
      List<LemmaCase> cases = LemmaCase.readChecked(dir);
      PrintWriter out = spec.commandLine().getOut();
      if (lemmas.rewrites().isEmpty()) {
        throw new InputException(
            "no lemma in " + dir + "; put *.lemmas files there (see README, Writing a lemma).");
      }
      List<LemmaCheck.Outcome> outcomes = LemmaCheck.check(lemmas, cases, seed);
      int wrong = 0;
      int untested = 0;
      for (LemmaCheck.Outcome o : outcomes) {
        if (!o.holds()) {
          wrong++;
          LemmaNumbers.Violation v = o.violations().get(0);
          out.println(
              o.lemma()
                  + ": FALSE on numbers, on "
                  + v.where()
                  + ": it makes "
                  + v.node()
                  + " equal to "
                  + v.term()
                  + ", but "
                  + (v.difference() == null
                      ? "their types differ"
                      : "they differ " + v.difference())
                  + ".");
        } else if (o.applied() == 0) {
          untested++;
          out.println(
              o.lemma()
                  + ": never applied to the terms tried; add cases that name it to a *.cases file in "
                  + dir
                  + " (one line each, NAME: START => GOAL).");
        } else {
          out.println(
              o.lemma()
                  + ": holds on numbers (applied "
                  + o.applied()
                  + " times, on "
                  + o.cases()
                  + " case(s) and "
                  + LemmaCheck.RANDOM_SETS
                  + " sets of random terms).");
        }
      }
      out.println(
          outcomes.size()
              + " lemma(s) checked, "
              + wrong
              + " false, "
              + untested
              + " never applied (seed "
              + seed
              + ").");
      out.flush();
      return wrong == 0 && (untested == 0 || allowUntested) ? 0 : 1;
    }
  }
}
