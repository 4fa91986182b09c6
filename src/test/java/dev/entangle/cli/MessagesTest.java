package dev.entangle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ArrayNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Messages that name the cause: wrong slots, missing entries, one rank, misspelled names. */
class MessagesTest {
  @TempDir Path tmp;

  private static final Path MLP = CliRun.PROJECT_ROOT.resolve("examples/mlp-tp2");

  @Test
  void aGsInputWithoutARelationEntryIsAnInputErrorNotABug() {
    Path ri =
        JsonEdits.copy(
            MLP.resolve("ri.json"),
            tmp.resolve("ri.json"),
            r -> ((ArrayNode) r.get("relations")).remove(0));
    CliRun.check(MLP.resolve("gs.json"), MLP.resolve("gd.json"), ri)
        .assertInputError("G_s input x is not related to G_d: add an entry", ri.toString());
  }

  @Test
  void aRelationFileInTheGdSlotIsSaidToBeInTheWrongSlot() {
    CliRun.check(MLP.resolve("gs.json"), MLP.resolve("ri.json"), MLP.resolve("ri.json"))
        .assertInputError("this is a relation file", "given where a graph file goes");
  }

  @Test
  void aGraphGivenAsTheRelationIsSaidToBeInTheWrongSlot() {
    CliRun.check(MLP.resolve("gs.json"), MLP.resolve("gd.json"), MLP.resolve("gd.json"))
        .assertInputError("this is a graph file", "given as the relation file");
  }

  @Test
  void oneRanksGraphWithCollectivesIsSaidToBeOneRank() {
    Path gd =
        JsonEdits.copy(
            MLP.resolve("gd.json"),
            tmp.resolve("gd.json"),
            g -> {
              g.put("world_size", 1);
              g.remove("process_groups");
              ((ArrayNode) g.get("ranks")).remove(1);
            });
    CliRun.check(MLP.resolve("gs.json"), gd, MLP.resolve("ri.json"))
        .assertInputError("has one rank, but its collectives", "all_reduce", "gd.r0.py gd.r1.py");
  }

  @Test
  void aMisspelledTensorNameGetsASuggestion() {
    Path ri =
        JsonEdits.copy(
            MLP.resolve("ri.json"),
            tmp.resolve("ri.json"),
            r ->
                ((com.fasterxml.jackson.databind.node.ObjectNode) r.get("relations").get(1))
                    .put("gs", "fc1.weigth"));
    CliRun.check(MLP.resolve("gs.json"), MLP.resolve("gd.json"), ri)
        .assertInputError("\"fc1.weigth\" is neither", "did you mean 'fc1.weight'");
  }

  @Test
  void aMisspelledOperatorInALemmaGetsASuggestion() throws IOException {
    Path lemmas = Files.createDirectories(tmp.resolve("lemmas"));
    Files.writeString(lemmas.resolve("x.lemmas"), "(rule my-max (max ?a ?b) (max ?b ?a))\n");
    CliRun run =
        CliRun.check(
            MLP.resolve("gs.json"),
            MLP.resolve("gd.json"),
            MLP.resolve("ri.json"),
            "--lemmas",
            lemmas);
    assertEquals(2, run.exitCode(), run::transcript);
    assertTrue(
        run.err().contains("unknown operator 'max' (did you mean 'maxn' or 'maximum'?)"),
        run::transcript);
  }

  @Test
  void aMisspelledOptionGetsASuggestion() {
    CliRun run =
        CliRun.check(
            MLP.resolve("gs.json"),
            MLP.resolve("gd.json"),
            MLP.resolve("ri.json"),
            "--timout",
            "3");
    assertEquals(2, run.exitCode(), run::transcript);
    assertTrue(run.err().contains("did you mean '--timeout'?"), run::transcript);
  }

  @Test
  void certifyPrintsOneLineWhenEveryEntryHolds() {
    CliRun run =
        CliRun.check(
            MLP.resolve("gs.json"), MLP.resolve("gd.json"), MLP.resolve("ri.json"), "--certify");
    assertEquals(0, run.exitCode(), run::transcript);
    assertTrue(
        run.err().contains("certified: each of the 1 entries of the output relation holds"),
        run::transcript);
    assertFalse(run.out().contains("certified"), "stdout is the report, unchanged");
  }

  @Test
  void topLevelHelpListsEveryExitCode() {
    CliRun run = CliRun.run("--help");
    assertEquals(0, run.exitCode(), run::transcript);
    for (String code :
        new String[] {
          "0   refines",
          "1   not-refined",
          "2   bad input",
          "3   inconclusive",
          "4   check --certify"
        }) {
      assertTrue(run.out().contains(code), () -> code + "\n" + run.transcript());
    }
    assertTrue(run.out().contains("unproved"), run::transcript);
  }
}
