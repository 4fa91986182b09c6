package dev.entangle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Dropout keeps its rate and training flag: the tensor-parallel MLP with a dropout after the
 * activation refines with equal rates on both sides, and not when G_d's rate or flag differs.
 */
class DropoutRateTest {
  private static final Path MLP = CliRun.PROJECT_ROOT.resolve("examples/mlp-tp2");

  @TempDir Path dir;

  private CliRun check(String target, Object gsRate, Object gdRate, boolean gdTrain) {
    Path gs =
        JsonEdits.copy(
            MLP.resolve("gs.json"), dir.resolve("gs.json"), g -> dropout(g, target, gsRate, true));
    Path gd =
        JsonEdits.copy(
            MLP.resolve("gd.json"),
            dir.resolve("gd.json"),
            g -> JsonEdits.ranks(g).forEach(r -> dropout(r, target, gdRate, gdTrain)));
    return CliRun.check(gs, gd, MLP.resolve("ri.json"));
  }

  @Test
  void equalRatesRefine() {
    CliRun r = check("aten.native_dropout.default", 0.1, 0.1, true);
    assertEquals("refines", r.verdictLine(), r::transcript);
    r = check("aten.dropout.default", 0.1, 0.1, true);
    assertEquals("refines", r.verdictLine(), r::transcript);
  }

  @Test
  void aDifferentRateInGdIsNotARefinement() {
    for (String t : new String[] {"aten.native_dropout.default", "aten.dropout.default"}) {
      CliRun r = check(t, 0.1, 0.15, true);
      assertEquals("not-refined", r.verdictLine(), r::transcript);
      assertEquals(1, r.exitCode(), r::transcript);
    }
  }

  @Test
  void dropoutOutOfTrainingInGdIsNotARefinement() {
    CliRun r = check("aten.native_dropout.default", 0.1, 0.1, false);
    assertNotEquals("refines", r.verdictLine(), r::transcript);
    assertEquals("not-refined", r.verdictLine(), r::transcript);
  }

  /**
   * Inserts {@code drop = DROPOUT(gelu, rate, train)} after {@code gelu} (with its item 0 for
   * {@code native_dropout}) and makes the second linear layer read it.
   */
  private static void dropout(JsonNode graph, String target, Object rate, boolean train) {
    ArrayNode nodes = JsonEdits.nodes(graph);
    ObjectNode gelu = JsonEdits.node(graph, "gelu");
    int at = 0;
    while (nodes.get(at) != gelu) {
      at++;
    }
    boolean tuple = target.equals("aten.native_dropout.default");
    ObjectNode d = call("drop", target, a -> a.add(ref("gelu")).add((Double) rate).add(train));
    ObjectNode meta = gelu.get("meta").deepCopy();
    if (tuple) {
      ObjectNode value = ExampleCase.JSON.createObjectNode();
      value.set("shape", gelu.at("/meta/shape").deepCopy());
      value.put("dtype", "float32");
      ObjectNode mask = value.deepCopy().put("dtype", "bool");
      meta = ExampleCase.JSON.createObjectNode();
      meta.putArray("tuple").add(value).add(mask);
    }
    d.set("meta", meta);
    nodes.insert(at + 1, d);
    String user = "drop";
    if (tuple) {
      ObjectNode item = call("drop_0", "getitem", a -> a.add(ref("drop")).add(0));
      item.set("meta", gelu.get("meta").deepCopy());
      nodes.insert(at + 2, item);
      user = "drop_0";
    }
    for (JsonNode n : nodes) {
      if (n.path("op").asText().equals("call_function")
          && !n.path("name").asText().startsWith("drop")) {
        ArrayNode args = (ArrayNode) n.get("args");
        for (int i = 0; i < args.size(); i++) {
          if (args.get(i).path("node").asText().equals("gelu")) {
            args.set(i, ref(user));
          }
        }
      }
    }
  }

  private static ObjectNode call(String name, String target, Consumer<ArrayNode> args) {
    ObjectNode n = ExampleCase.JSON.createObjectNode();
    n.put("name", name);
    n.put("op", "call_function");
    n.put("target", target);
    args.accept(n.putArray("args"));
    n.putObject("kwargs");
    return n;
  }

  private static ObjectNode ref(String name) {
    ObjectNode r = ExampleCase.JSON.createObjectNode();
    r.put("node", name);
    return r;
  }
}
