package dev.entangle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lemmas given with {@code --lemmas} are checked on numbers before a check trusts them: a false one
 * is refused at its file and line, and a {@code refines} that used one the numbers could not
 * exercise is certified on numbers, blaming the lemma.
 */
class UserLemmasCheckTest {
  private static final Path BUG = CliRun.PROJECT_ROOT.resolve("examples/bug-mlp-missing-allreduce");
  private static final Path MLP = CliRun.PROJECT_ROOT.resolve("examples/mlp-tp2");

  @TempDir Path dir;

  private CliRun check(Path example, Object... extra) {
    return CliRun.check(
        example.resolve("gs.json"), example.resolve("gd.json"), example.resolve("ri.json"), extra);
  }

  @Test
  void aFalseLemmaIsRefusedAtItsLineWithACounterExample() throws IOException {
    Files.writeString(dir.resolve("f.lemmas"), "; wrong\n(rule f (sumn ?a ?b) ?a)\n");
    check(BUG, "--lemmas", dir)
        .assertInputError("f.lemmas:2", "'f' is false on numbers", "it makes (sumn", "differ");
    check(BUG, "--lemmas", dir, "--certify").assertInputError("f.lemmas:2");
  }

  @Test
  void aFalseLemmaTheNumbersCannotReachIsCertifiedAndBlamed() throws IOException {
    Files.writeString(
        dir.resolve("f.lemmas"),
        "; wrong, for width 16 only\n(rule f16 (sumn ?a ?b) ?a :when (= (size ?a 1) 16))\n");
    CliRun run = check(BUG, "--lemmas", dir);
    assertEquals(ExitCodes.CERTIFICATE_VIOLATED, run.exitCode(), run::transcript);
    assertTrue(run.err().contains("warning: the lemma 'f16'"), run::transcript);
    assertTrue(
        run.err().contains("certificate violated: the proof used your lemma 'f16' ("),
        run::transcript);
    assertFalse(run.err().contains("bug in entangle"), run::transcript);
  }

  @Test
  void anUntestedLemmaThatHoldsStillRefines() throws IOException {
    Files.writeString(
        dir.resolve("t.lemmas"),
        "; true, and never reached\n(rule neg-neg-16 (neg (neg ?x)) ?x :when (= (size ?x 0) 99))\n");
    CliRun run = check(MLP, "--lemmas", dir);
    assertEquals(0, run.exitCode(), run::transcript);
    assertTrue(run.err().contains("warning: the lemma 'neg-neg-16'"), run::transcript);
  }

  @Test
  void aTrueLemmaExercisedByItsCasesIsUsedQuietly() throws IOException {
    Files.writeString(
        dir.resolve("t.lemmas"), "; double negation\n(rule neg-neg (neg (neg ?x)) ?x)\n");
    Files.writeString(dir.resolve("t.cases"), "neg-neg: (neg (neg a:f32[2,3])) => a\n");
    CliRun run = check(MLP, "--lemmas", dir);
    assertEquals(0, run.exitCode(), run::transcript);
    assertEquals("", run.err(), run::transcript);
  }

  @Test
  void aBadCaseFileNextToTheLemmasIsAnInputError() throws IOException {
    Files.writeString(
        dir.resolve("t.lemmas"), "; double negation\n(rule neg-neg (neg (neg ?x)) ?x)\n");
    Files.writeString(dir.resolve("t.cases"), "neg-neg: (neg (neg a:f32[8x])) => a\n");
    check(MLP, "--lemmas", dir).assertInputError("t.cases:1");
  }

  @Test
  void anUnreadableLemmaFileIsReportedAgainstTheFile() throws IOException {
    Files.write(dir.resolve("bad.lemmas"), new byte[] {'(', 'r', (byte) 0xff, (byte) 0xfe, ')'});
    check(MLP, "--lemmas", dir).assertInputError("bad.lemmas", "not valid UTF-8");
  }

  @Test
  void aLemmaThatChangesAShapeIsBlamedNotEntangle() throws IOException {
    Files.writeString(
        dir.resolve("s.lemmas"),
        "; changes a shape, for width 16 only\n"
            + "(rule shape16 (sumn ?a ?b) (concat[0] ?a ?b) :when (= (size ?a 1) 16))\n");
    CliRun run = check(MLP, "--lemmas", dir);
    assertEquals(2, run.exitCode(), run::transcript);
    assertTrue(
        run.err().contains("a lemma of yours made two values of different types equal"),
        run::transcript);
    assertTrue(run.err().contains("'shape16' ("), run::transcript);
    assertFalse(run.err().contains("internal error"), run::transcript);
  }
}
