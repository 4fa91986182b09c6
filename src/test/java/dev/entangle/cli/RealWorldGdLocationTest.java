package dev.entangle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each shared real-world bug is located first at a line of the distributed code the bug touches.
 * The shared folders are read-only, so the lines are stated here rather than in their {@code
 * expected.json}. Skipped, saying so, when {@code ../shared} is absent.
 */
@Tag("realworld")
class RealWorldGdLocationTest {
  @TempDir Path tmp;

  /** Case, and the first G_d line its report must name (the file's last path parts and line). */
  private static final Map<String, String> FIRST_LINE = new LinkedHashMap<>();

  static {
    // the trainer's training step returns the loss it never divided by the accumulation steps
    FIRST_LINE.put("bug-grad-accumulation", "transformers/trace_trainer.py:3612");
    // the tensor-parallel linear whose all-reduce the mis-configuration leaves out
    FIRST_LINE.put("bug-missing-allreduce-wrong-config", "core/tensor_parallel/layers.py:697");
    // the key block sliced from the query range: the k slice, not the (correct) q slice
    FIRST_LINE.put("bug-llama3-tp2-l1-k-slice", "transformers_neuronx/layers/attention.py:124");
  }

  @Test
  void everySharedBugIsLocatedFirstAtALineItTouches() throws IOException {
    RealWorldCase.assumePresent();
    Path hlo = RealWorldCase.ROOT.resolveSibling("realworld-hlo");
    List<Object> args = new ArrayList<>(List.of("batch", RealWorldCase.ROOT));
    if (Files.isDirectory(hlo)) {
      args.add(hlo);
    }
    Path json = tmp.resolve("rw.json");
    args.addAll(List.of("--json", json, "-j", "2"));
    CliRun run = CliRun.run(args.toArray());
    assertEquals(0, run.exitCode(), run::transcript);
    Map<String, JsonNode> byName = new LinkedHashMap<>();
    ExampleCase.JSON
        .readTree(json.toFile())
        .get("cases")
        .forEach(c -> byName.put(c.get("name").asText(), c));
    int checked = 0;
    for (Map.Entry<String, String> e : FIRST_LINE.entrySet()) {
      JsonNode c = byName.get(e.getKey());
      if (c == null) {
        continue; // that folder is not in this copy of the shared data
      }
      JsonNode first = c.at("/report/failure/gd_locations/0");
      assertTrue(!first.isMissingNode(), e.getKey() + " names no G_d line: " + c);
      String at = first.get("path").asText() + ":" + first.get("line").asInt();
      assertTrue(at.endsWith("/" + e.getValue()), e.getKey() + ": first G_d line " + at);
      checked++;
    }
    for (String name : byName.keySet()) {
      if (name.startsWith("bug-")) {
        assertTrue(
            FIRST_LINE.containsKey(name), "a shared bug case without its line here: " + name);
      }
    }
    assumeTrue(checked > 0, "skipped: none of the shared bug cases is present");
  }
}
