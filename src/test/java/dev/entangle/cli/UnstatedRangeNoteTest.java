package dev.entangle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An {@code unproved} check whose step on numbers reads ids the relation gives no range for says
 * which range the numbers drew them from and which {@code in_range} to state; one whose ids have
 * their range stated, or that reads no ids, says nothing of it.
 */
class UnstatedRangeNoteTest {
  private static final Path UNSTATED =
      CliRun.PROJECT_ROOT.resolve("examples/vocab-parallel-lm-loss-indexed-unstated-tp4");
  private static final Path STATED =
      CliRun.PROJECT_ROOT.resolve("examples/vocab-parallel-lm-loss-indexed-tp4");
  private static final String NOTE = "The relation states no range for the ids of G_s input";

  @TempDir Path dir;

  @Test
  void labelsWithoutARangeAreNamedWithTheRangeToState() {
    Path json = dir.resolve("report.json");
    CliRun r =
        CliRun.check(
            UNSTATED.resolve("gs.json"),
            UNSTATED.resolve("gd.json"),
            UNSTATED.resolve("ri.json"),
            "--json",
            json);
    assertEquals("unproved", r.verdictLine(), r::transcript);
    assertTrue(
        r.out().contains(NOTE + " 'labels'; the numbers drew them in [0, 16)"), r::transcript);
    assertTrue(r.out().contains("add \"in_range\": [0, 16] to its relations entry"), r::transcript);
    JsonNode reason = JsonEdits.read(json).path("failure").path("reason");
    assertTrue(reason.asText().contains("\"in_range\": [0, 16]"), reason::toString);
  }

  @Test
  void labelsWithTheirRangeStatedAreNotMentioned() {
    CliRun r =
        CliRun.check(
            STATED.resolve("gs.json"), STATED.resolve("gd.json"), STATED.resolve("ri.json"));
    assertEquals("refines", r.verdictLine(), r::transcript);
    assertFalse(r.out().contains(NOTE), r::transcript);
  }
}
