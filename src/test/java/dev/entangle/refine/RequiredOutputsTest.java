package dev.entangle.refine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.cli.CliRun;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which G_s outputs the output relation must cover when the relation file does not say: the results
 * (outputs no G_s node uses again). An output G_s also consumes is an activation saved for
 * backward, which G_d keeps in its own form.
 */
class RequiredOutputsTest {
  @TempDir Path tmp;

  private static String tensor(String name, String op, String target, String args, int rows) {
    return "{\"name\": \""
        + name
        + "\", \"op\": \""
        + op
        + "\", \"target\": \""
        + target
        + "\""
        + (args == null ? "" : ", \"args\": " + args)
        + ", \"meta\": {\"shape\": ["
        + rows
        + ", 4], \"dtype\": \"float32\"}}";
  }

  /** x -> y = gelu(x) -> z = neg(y), returning the given names. */
  private static String graph(int rows, String... outputs) {
    StringBuilder out = new StringBuilder();
    for (String o : outputs) {
      out.append(out.length() == 0 ? "" : ", ").append("{\"node\": \"").append(o).append("\"}");
    }
    return "{\"format\": \"entangle-fx/1\", \"nodes\": ["
        + tensor("x", "placeholder", "x", null, rows)
        + ", "
        + tensor("y", "call_function", "aten.gelu.default", "[{\"node\": \"x\"}]", rows)
        + ", "
        + tensor("z", "call_function", "aten.neg.default", "[{\"node\": \"y\"}]", rows)
        + ", "
        + tensor("w", "call_function", "aten.exp.default", "[{\"node\": \"x\"}]", rows)
        + ", "
        + "{\"name\": \"output\", \"op\": \"output\", \"target\": \"output\", \"args\": [["
        + out
        + "]]}]}";
  }

  private CliRun check(String gs, String rank) throws IOException {
    Path g = Files.writeString(tmp.resolve("gs.json"), gs);
    Path d =
        Files.writeString(
            tmp.resolve("gd.json"),
            "{\"format\": \"entangle-fx/1\", \"world_size\": 2, \"ranks\": ["
                + rank
                + ", "
                + rank
                + "]}");
    Path r =
        Files.writeString(
            tmp.resolve("ri.json"),
            "{\"format\": \"entangle-relation/1\", \"relations\": [{\"gs\": \"x\", \"shard\": 0}]}");
    return CliRun.check(g, d, r);
  }

  @Test
  void anOutputGsAlsoConsumesIsASavedActivationAndNotRequired() throws IOException {
    CliRun run = check(graph(8, "z", "y"), graph(4, "z"));
    assertEquals(0, run.exitCode(), run::transcript);
    assertTrue(run.out().contains("z: concat(r0.z, r1.z, dim=0)"), run::transcript);
  }

  @Test
  void aResultGdDoesNotReturnIsNotRefined() throws IOException {
    CliRun run = check(graph(8, "z", "w"), graph(4, "z"));
    assertEquals(1, run.exitCode(), run::transcript);
    assertTrue(run.out().contains("operator: w (aten.exp.default)"), run::transcript);
  }

  @Test
  void outputsInTheRelationFileAreRequiredEvenWhenConsumed() throws IOException {
    Path g = Files.writeString(tmp.resolve("gs.json"), graph(8, "z", "y"));
    Path d =
        Files.writeString(
            tmp.resolve("gd.json"),
            "{\"format\": \"entangle-fx/1\", \"world_size\": 2, \"ranks\": ["
                + graph(4, "z")
                + ", "
                + graph(4, "z")
                + "]}");
    Path r =
        Files.writeString(
            tmp.resolve("ri.json"),
            "{\"format\": \"entangle-relation/1\", \"relations\": "
                + "[{\"gs\": \"x\", \"shard\": 0}], \"outputs\": [\"y\"]}");
    CliRun run = CliRun.check(g, d, r);
    assertEquals(1, run.exitCode(), run::transcript);
    assertTrue(run.out().contains("operator: y (aten.gelu.default)"), run::transcript);
  }
}
