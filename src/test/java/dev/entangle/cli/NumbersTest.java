package dev.entangle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where a proof fails, numbers tell a gap in the lemmas ({@code unproved}, with the candidate and a
 * lemma to complete) from a bug ({@code not-refined}, with a witness); {@code --certify} checks a
 * {@code refines} certificate on numbers.
 */
class NumbersTest {
  @TempDir Path tmp;

  private static final Path MLP = CliRun.PROJECT_ROOT.resolve("examples/mlp-tp2");
  private static final Path MISSING_ALLREDUCE =
      CliRun.PROJECT_ROOT.resolve("examples/bug-mlp-missing-allreduce");

  @AfterEach
  void shippedLemmasAgain() {
    System.clearProperty("entangle.home");
  }

  /** Ships the lemma library without one lemma, as if it had never been written. */
  private void withoutLemma(String file, String commentStart, String nextCommentStart)
      throws IOException {
    Path lemmas = Files.createDirectories(tmp.resolve("home/lemmas"));
    try (Stream<Path> files = Files.list(CliRun.PROJECT_ROOT.resolve("lemmas"))) {
      for (Path f : files.toList()) {
        String text = Files.readString(f);
        if (f.getFileName().toString().equals(file)) {
          int from = text.indexOf(commentStart);
          int to = text.indexOf(nextCommentStart, from + 1);
          assertTrue(from >= 0 && to > from, "the lemma is in " + file);
          text = text.substring(0, from) + text.substring(to);
        }
        Files.writeString(lemmas.resolve(f.getFileName()), text);
      }
    }
    System.setProperty("entangle.home", tmp.resolve("home").toString());
  }

  private void withoutSplitInner() throws IOException {
    withoutLemma(
        "30-matmul.lemmas", "; the contracted dim split alike", "; a batch dim split alike");
  }

  private CliRun check(Path example, Object... extra) {
    return CliRun.check(
        example.resolve("gs.json"), example.resolve("gd.json"), example.resolve("ri.json"), extra);
  }

  @Test
  void aMissingLemmaOnACorrectModelIsUnprovedWithTheCandidateAndALemmaToComplete()
      throws IOException {
    withoutSplitInner();
    Path report = tmp.resolve("r.json");
    CliRun run = check(MLP, "--json", report);
    assertEquals(3, run.exitCode(), run::transcript);
    assertEquals("unproved", run.verdictLine(), run::transcript);
    JsonNode json = Reports.read(report);
    assertEquals("unproved", json.get("verdict").asText());
    JsonNode f = json.get("failure");
    assertEquals("addmm_1", f.get("operator").asText(), run::transcript);
    assertEquals("r0.add", f.at("/candidate/gd").asText(), run::transcript);
    assertEquals(3, f.at("/candidate/draws").asInt());
    assertTrue(
        f.get("lemma_skeleton").asText().contains("(rule numeric-addmm-1\n  (add (matmul"),
        run::transcript);
    assertFalse(f.has("witness"));
    assertEquals("addmm_1", json.at("/assumed/0/gs").asText());
    assertTrue(run.out().contains("a gap in the lemmas"), run::transcript);
  }

  @Test
  void aRealBugWithTheSameLemmaMissingStaysNotRefinedWithAWitness() throws IOException {
    withoutSplitInner();
    Path report = tmp.resolve("r.json");
    CliRun run = check(MISSING_ALLREDUCE, "--json", report, "--seed", "7");
    assertEquals(1, run.exitCode(), run::transcript);
    assertEquals("not-refined", run.verdictLine(), run::transcript);
    JsonNode w = Reports.read(report).at("/failure/witness");
    assertEquals(7, w.get("seed").asLong(), run::transcript);
    assertTrue(w.get("differing").asLong() > 0, run::transcript);
    assertTrue(
        run.out()
            .matches(
                "(?s).*on random inputs \\(seed 7\\) none of the [1-9][0-9]* clean forms tried"
                    + " \\(G_d tensors and, across ranks, their concatenations, sums, maxima and minima,"
                    + " each permuted or reshaped\\) equals addmm_1.*"),
        run::transcript);
    assertTrue(!run.out().contains("no clean expression exists"), run::transcript);
  }

  @Test
  void theSameSeedGivesTheSameWitness() {
    CliRun a = check(MISSING_ALLREDUCE, "--seed", "3");
    CliRun b = check(MISSING_ALLREDUCE, "--seed", "3");
    CliRun c = check(MISSING_ALLREDUCE, "--seed", "4");
    assertEquals(numbersLine(a), numbersLine(b));
    assertFalse(numbersLine(a).equals(numbersLine(c)), "another seed draws other numbers");
  }

  private static String numbersLine(CliRun run) {
    return run.out().lines().filter(l -> l.startsWith("  numbers:")).findFirst().orElseThrow();
  }

  @Test
  void withoutNumbersAFailureSaysSoAndIsNeverUnproved() throws IOException {
    withoutSplitInner();
    CliRun run = check(MLP, "--no-numbers");
    assertEquals(1, run.exitCode(), run::transcript);
    assertEquals("not-refined", run.verdictLine(), run::transcript);
    assertTrue(run.out().contains("numbers:  not run: numbers are off."), run::transcript);
  }

  @Test
  void aModelOverTheNumericBudgetIsNotEvaluatedAndTheReportSaysWhy() {
    CliRun run = check(MISSING_ALLREDUCE, "--numeric-budget", "0.000001");
    assertEquals("not-refined", run.verdictLine(), run::transcript);
    assertTrue(
        run.out().contains("more than the numeric budget of 0.0 (--numeric-budget)"),
        run::transcript);
  }

  @Test
  void aFalseCertificateBlamesTheUserLemmaTheProofUsed() throws IOException {
    // a wrong lemma, for width 16 only (the random terms of the load-time check never reach it):
    // a sum across ranks equals its first operand
    Path wrong = Files.createDirectories(tmp.resolve("wrong"));
    Files.writeString(
        wrong.resolve("wrong.lemmas"),
        "; a false law\n(rule sum-is-first (sumn ?x ?y) ?x :when (= (size ?x 1) 16))\n");
    CliRun run = check(MISSING_ALLREDUCE, "--lemmas", wrong, "--certify");
    assertEquals("refines", run.verdictLine(), run::transcript);
    assertEquals(4, run.exitCode(), run::transcript);
    assertTrue(
        run.err().contains("certificate violated: the proof used your lemma 'sum-is-first' ("),
        run::transcript);
    assertTrue(run.err().contains("wrong.lemmas:2), which is false"), run::transcript);
    assertFalse(run.err().contains("bug in entangle"), run::transcript);
  }

  @Test
  void aTrueCertificatePassesQuietly() {
    CliRun run = check(MLP, "--certify");
    assertEquals(0, run.exitCode(), run::transcript);
    assertFalse(run.err().contains("certificate"), run::transcript);
  }
}
