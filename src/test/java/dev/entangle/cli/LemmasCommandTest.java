package dev.entangle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code entangle lemmas check DIR}: a user's own lemmas are checked on numbers before they are
 * trusted.
 */
class LemmasCommandTest {
  @TempDir Path dir;

  @Test
  void aTrueLemmaHoldsAndAFalseOneIsNamedWithTheTermsThatRefuteIt() throws IOException {
    Files.writeString(
        dir.resolve("mine.lemmas"),
        String.join(
            "\n",
            "; negation commutes with a permute",
            "(rule neg-permute (permute[?p...] (neg ?x)) (neg (permute[?p...] ?x)))",
            "",
            "; false: exp of a sum is the sum of exps",
            "(rule exp-add (exp (add ?x ?y)) (add (exp ?x) (exp ?y)))",
            ""));
    Files.writeString(
        dir.resolve("mine.cases"),
        String.join(
            "\n",
            "neg-permute: (permute[1 0] (neg a:f32[2,3])) => (neg (permute[1 0] a))",
            "exp-add: (exp (add a:f32[2,3] b:f32[2,3])) => (add (exp a) (exp b))",
            ""));
    CliRun run = CliRun.run("lemmas", "check", dir);
    assertEquals(1, run.exitCode(), run::transcript);
    assertTrue(run.out().contains("neg-permute: holds on numbers (applied "), run::transcript);
    assertTrue(
        run.out()
            .contains(
                "mine.cases:2: it makes (add (exp a) (exp b)) equal"
                    + " to (exp (add a b)), but they differ at "),
        run::transcript);
    assertTrue(
        run.out().contains("2 lemma(s) checked, 1 false, 0 never applied (seed 1)."),
        run::transcript);
  }

  @Test
  void aLemmaNoTermReachesIsSaidToNeedCases() throws IOException {
    Files.writeString(
        dir.resolve("mine.lemmas"),
        "; rotary embedding of a slice\n(rule rope-id (rope[?h ?n] ?x ?p ?c) (rope[?h ?n] ?x ?p ?c))\n");
    CliRun run = CliRun.run("lemmas", "check", dir);
    assertEquals(1, run.exitCode(), run::transcript);
    assertTrue(
        run.out().contains("rope-id: never applied to the terms tried; add cases"),
        run::transcript);
    CliRun allowed = CliRun.run("lemmas", "check", dir, "--allow-untested");
    assertEquals(0, allowed.exitCode(), allowed::transcript);
  }

  @Test
  void aMalformedCaseLineIsAnInputErrorAtItsLine() throws IOException {
    Files.writeString(dir.resolve("mine.lemmas"), "(rule neg-neg (neg (neg ?x)) ?x)\n");
    Files.writeString(
        dir.resolve("mine.cases"),
        "neg-neg: (neg (neg a:f32[2,3])) => a\nneg-neg: (neg (neg b:f32[2,-3])) => b\n");
    CliRun.run("lemmas", "check", dir).assertInputError("mine.cases:2", "size of a shape");
    Files.writeString(dir.resolve("mine.cases"), "neg-neg (neg (neg a:f32[2,3])) => a\n");
    CliRun.run("lemmas", "check", dir).assertInputError("mine.cases:1", "expected");
    Files.writeString(dir.resolve("mine.cases"), "neg-neg: (frob a:f32[2]) => a\n");
    CliRun.run("lemmas", "check", dir).assertInputError("mine.cases:1", "unknown operator");
  }

  @Test
  void aBadLemmaFileIsAnInputError() throws IOException {
    Files.writeString(dir.resolve("bad.lemmas"), "(rule r (frob ?x) ?x)\n");
    CliRun run = CliRun.run("lemmas", "check", dir);
    run.assertInputError("unknown operator 'frob'");
  }
}
