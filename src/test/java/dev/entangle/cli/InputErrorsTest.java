package dev.entangle.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input exits 2 with one paragraph on stderr that names the file and what is wrong in it, and
 * never a stack trace. Each case damages a copy of an example.
 */
class InputErrorsTest {
  private static final ExampleCase MLP =
      ExampleCase.all().stream().filter(c -> c.name().equals("mlp-tp2")).findFirst().orElseThrow();

  @TempDir Path tmp;

  private Path gs() {
    return MLP.gs();
  }

  private Path gd() {
    return MLP.gd();
  }

  private Path ri() {
    return MLP.ri();
  }

  @Test
  void missingFiles() {
    Path none = tmp.resolve("no-such-file.json");
    CliRun.check(none, gd(), ri()).assertInputError(none.toString());
    CliRun.check(gs(), none, ri()).assertInputError(none.toString());
    CliRun.check(gs(), gd(), none).assertInputError(none.toString());
  }

  @Test
  void malformedJson() throws IOException {
    Path bad = tmp.resolve("gs.json");
    String text = Files.readString(gs());
    Files.writeString(bad, text.substring(0, text.length() / 2));
    CliRun.check(bad, gd(), ri()).assertInputError(bad.toString(), "line");
    Path rel = tmp.resolve("ri.json");
    Files.writeString(rel, "{\"format\": \"entangle-relation/1\", \"relations\": [}");
    CliRun.check(gs(), gd(), rel).assertInputError(rel.toString(), "line");
  }

  @Test
  void referenceToAnUnknownNode() {
    Path bad =
        JsonEdits.copy(
            gs(),
            tmp.resolve("gs.json"),
            g -> {
              ObjectNode user = JsonEdits.firstCall(g, "aten.t.default");
              ((ArrayNode) user.get("args")).set(0, ref("no_such_node"));
            });
    CliRun.check(bad, gd(), ri()).assertInputError(bad.toString(), "no_such_node", "\"t\"");

    Path badGd =
        JsonEdits.copy(
            gd(),
            tmp.resolve("gd.json"),
            d -> {
              ObjectNode user = JsonEdits.firstCall(JsonEdits.ranks(d).get(1), "aten.mm.default");
              ((ArrayNode) user.get("args")).set(0, ref("no_such_node"));
            });
    CliRun.check(gs(), badGd, ri()).assertInputError(badGd.toString(), "no_such_node", "mm");
  }

  @Test
  void referenceToALaterNode() {
    Path bad =
        JsonEdits.copy(
            gs(),
            tmp.resolve("gs.json"),
            g -> {
              ObjectNode user = JsonEdits.firstCall(g, "aten.t.default");
              ((ArrayNode) user.get("args"))
                  .set(0, ref(JsonEdits.firstCall(g, "aten.gelu.default").get("name").asText()));
            });
    CliRun.check(bad, gd(), ri()).assertInputError(bad.toString(), "gelu", "order");
  }

  @Test
  void relationNamingAnUnknownTensor() {
    Path gsSide = relationWith("{\"gs\": \"no_such_tensor\", \"gd\": \"r0.x\"}");
    CliRun.check(gs(), gd(), gsSide).assertInputError(gsSide.toString(), "no_such_tensor");
    Path gdSide = relationWith("{\"gs\": \"x\", \"gd\": \"r1.no_such_tensor\"}");
    CliRun.check(gs(), gd(), gdSide).assertInputError(gdSide.toString(), "no_such_tensor");
    Path rank = relationWith("{\"gs\": \"x\", \"gd\": \"r7.x\"}");
    CliRun.check(gs(), gd(), rank).assertInputError(rank.toString(), "r7");
  }

  @Test
  void relationWhoseShardsDoNotAddUp() {
    Path oneShard =
        relationWith("{\"gs\": \"fc1.weight\", \"gd\": \"concat(r0.fc1.weight, dim=0)\"}");
    CliRun.check(gs(), gd(), oneShard).assertInputError(oneShard.toString(), "fc1.weight", "shape");
    Path wrongDim = relationWith("{\"gs\": \"fc1.weight\", \"shard\": 1}");
    CliRun.check(gs(), gd(), wrongDim).assertInputError(wrongDim.toString(), "fc1.weight", "shape");
    Path halfSlice =
        relationWith("{\"gs\": \"x\", \"gd\": \"slice(r0.x, dim=0, start=0, end=2)\"}");
    CliRun.check(gs(), gd(), halfSlice).assertInputError(halfSlice.toString(), "x", "shape");
  }

  @Test
  void expressionThatDoesNotParse() {
    Path open =
        relationWith(
            "{\"gs\": \"fc1.weight\", \"gd\": \"concat(r0.fc1.weight, r1.fc1.weight, dim=0\"}");
    CliRun.check(gs(), gd(), open).assertInputError(open.toString(), "fc1.weight", "column");
    Path unknown = relationWith("{\"gs\": \"x\", \"gd\": \"frobnicate(r0.x)\"}");
    CliRun.check(gs(), gd(), unknown).assertInputError(unknown.toString(), "frobnicate", "column");
  }

  @Test
  void mismatchedCollectivesAcrossRanks() {
    Path reduceOp =
        JsonEdits.copy(
            gd(),
            tmp.resolve("op.json"),
            d -> {
              ObjectNode ar =
                  JsonEdits.firstCall(
                      JsonEdits.ranks(d).get(1), "_c10d_functional.all_reduce.default");
              ((ArrayNode) ar.get("args")).set(1, "max");
            });
    CliRun.check(gs(), reduceOp, ri())
        .assertInputError(reduceOp.toString(), "all_reduce", "rank 1");

    Path kind =
        JsonEdits.copy(
            gd(),
            tmp.resolve("kind.json"),
            d -> {
              ObjectNode ar =
                  JsonEdits.firstCall(
                      JsonEdits.ranks(d).get(1), "_c10d_functional.all_reduce.default");
              ar.put("target", "_c10d_functional.broadcast.default");
              ArrayNode args = (ArrayNode) ar.get("args");
              args.set(1, args.numberNode(0));
            });
    CliRun.check(gs(), kind, ri()).assertInputError(kind.toString(), "all_reduce", "rank 1");

    Path missing =
        JsonEdits.copy(
            gd(),
            tmp.resolve("missing.json"),
            d -> {
              ObjectNode rank1 = JsonEdits.ranks(d).get(1);
              ObjectNode ar = JsonEdits.firstCall(rank1, "_c10d_functional.all_reduce.default");
              ObjectNode wait = JsonEdits.firstCall(rank1, "_c10d_functional.wait_tensor.default");
              ((ArrayNode) wait.get("args")).set(0, ar.get("args").get(0));
              removeNode(rank1, ar.get("name").asText());
            });
    CliRun.check(gs(), missing, ri()).assertInputError(missing.toString(), "tp", "rank 1");
  }

  @Test
  void recordedShapeThatDisagreesWithTheOperator() {
    Path badGs =
        JsonEdits.copy(
            gs(),
            tmp.resolve("gs.json"),
            g -> bumpShape(JsonEdits.firstCall(g, "aten.mm.default", "aten.addmm.default")));
    String gsNode =
        JsonEdits.firstCall(JsonEdits.read(gs()), "aten.mm.default", "aten.addmm.default")
            .get("name")
            .asText();
    CliRun.check(badGs, gd(), ri()).assertInputError(badGs.toString(), "'" + gsNode + "'", "shape");

    Path badGd =
        JsonEdits.copy(
            gd(),
            tmp.resolve("gd.json"),
            d ->
                JsonEdits.ranks(d)
                    .forEach(rank -> bumpShape(JsonEdits.firstCall(rank, "aten.mm.default"))));
    CliRun.check(gs(), badGd, ri()).assertInputError(badGd.toString(), "'mm'", "shape");
  }

  /**
   * Over every example, the recorded shape of each kind of operator is checked: one wrong size
   * gives an input error naming the file and the node. The node is changed alike on every rank, so
   * that the ranks still agree with each other; collectives included (their result is checked
   * against what the group computes).
   */
  @TestFactory
  List<DynamicTest> everyKindOfOperatorHasItsRecordedShapeChecked() throws IOException {
    List<DynamicTest> tests = new ArrayList<>();
    Set<String> seen = new LinkedHashSet<>();
    for (ExampleCase c : ExampleCase.all()) {
      String relation = Files.readString(c.ri());
      for (String side : List.of("gs", "gd")) {
        Path file = side.equals("gs") ? c.gs() : c.gd();
        for (JsonNode n : JsonEdits.nodes(JsonEdits.ranks(JsonEdits.read(file)).get(0))) {
          String target = n.path("target").asText();
          JsonNode shape = n.path("meta").path("shape");
          if (!n.path("op").asText().equals("call_function")
              || !shape.isArray()
              || shape.isEmpty()
              || namedBy(relation, n)
              || !seen.add(side + " " + target)) {
            continue;
          }
          String name = n.get("name").asText();
          tests.add(
              DynamicTest.dynamicTest(
                  c.name() + " " + side + " " + name + " (" + target + ")",
                  () -> wrongShapeIsRejected(c, side, name, target)));
        }
      }
    }
    assertTrue(tests.size() > 10, "too few operator kinds in the examples: " + seen);
    return tests;
  }

  /**
   * Whether the relation names the node (an {@code expect} entry of a G_s output): a wrong shape
   * there is the relation's error, reported against the relation file.
   */
  private static boolean namedBy(String relation, JsonNode n) {
    String tag = n.path("meta").path("tag").asText("");
    return relation.contains('"' + n.get("name").asText() + '"')
        || (!tag.isEmpty() && relation.contains('"' + tag + '"'));
  }

  private void wrongShapeIsRejected(ExampleCase c, String side, String name, String target)
      throws IOException {
    Path dir = Files.createTempDirectory(tmp, side);
    Path from = side.equals("gs") ? c.gs() : c.gd();
    Path bad =
        JsonEdits.copy(
            from,
            dir.resolve(side + ".json"),
            root -> {
              for (ObjectNode rank : JsonEdits.ranks(root)) {
                if (JsonEdits.nodes(rank).findValues("name").stream()
                    .anyMatch(v -> v.asText().equals(name))) {
                  bumpShape(JsonEdits.node(rank, name));
                }
              }
            });
    CliRun run =
        side.equals("gs") ? CliRun.check(bad, c.gd(), c.ri()) : CliRun.check(c.gs(), bad, c.ri());
    run.assertInputError(bad.toString(), "'" + name + "'");
  }

  @Test
  void lemmaFolderWithABrokenRule() throws IOException {
    Path dir = Files.createDirectories(tmp.resolve("lemmas"));
    Path file = dir.resolve("broken.lemmas");
    Pattern position = Pattern.compile(Pattern.quote(file.toString()) + ":\\d+:\\d+");

    Files.writeString(
        file,
        "; the right side uses a variable the left side does not bind\n"
            + "(rule gelu-unbound\n  (gelu ?a)\n  (gelu ?b))\n");
    CliRun unbound = MLP.check("--lemmas", dir).assertInputError(file + ":4:");
    assertTrue(position.matcher(unbound.err()).find(), unbound::transcript);
    assertTrue(unbound.err().contains("?b"), unbound::transcript);

    Files.writeString(file, "; never closed\n(rule gelu-open\n  (gelu ?a)\n");
    CliRun open = MLP.check("--lemmas", dir).assertInputError(file.toString());
    assertTrue(position.matcher(open.err()).find(), open::transcript);

    Files.writeString(file, "(frobnicate gelu-id (gelu ?a) (gelu ?a))\n");
    CliRun form = MLP.check("--lemmas", dir).assertInputError(file + ":1:", "frobnicate");
    assertTrue(position.matcher(form.err()).find(), form::transcript);
  }

  @Test
  void lemmaFolderThatDoesNotExist() {
    Path none = tmp.resolve("no-such-folder");
    MLP.check("--lemmas", none).assertInputError(none.toString());
  }

  /** The lemmas load while the inputs are read and lowered; errors still come in that order. */
  @Test
  void inputErrorsBeforeLemmaErrorsBeforeLoweringErrors() {
    Path noFolder = tmp.resolve("no-such-folder");
    Path noFile = tmp.resolve("no-such-file.json");
    CliRun.check(noFile, gd(), ri(), "--lemmas", noFolder).assertInputError(noFile.toString());
    Path wrongDim = relationWith("{\"gs\": \"fc1.weight\", \"shard\": 1}");
    CliRun lemmaFirst =
        CliRun.check(gs(), gd(), wrongDim, "--lemmas", noFolder)
            .assertInputError(noFolder.toString());
    assertFalse(lemmaFirst.err().contains(wrongDim.toString()), lemmaFirst::transcript);
    CliRun.check(gs(), gd(), wrongDim).assertInputError(wrongDim.toString(), "shape");
  }

  @Test
  void importOfAFileThatIsMissingOrNotGraphCode() throws IOException {
    Path none = tmp.resolve("no-such-graph.py");
    CliRun.run("import", none, "-o", tmp.resolve("out.json")).assertInputError(none.toString());
    Path garbage = Files.writeString(tmp.resolve("garbage.py"), "this is (not graph code\n");
    CliRun.run("import", garbage, "-o", tmp.resolve("out.json"))
        .assertInputError(garbage.toString());
    assertFalse(Files.exists(tmp.resolve("out.json")), "import wrote a file for bad input");
    CliRun.run("import", garbage, "-o", tmp.resolve("out.json"), "--group", "tp")
        .assertInputError("--group");
    CliRun.run("import", garbage, "-o", tmp.resolve("out.json"), "--constant", "c=zero")
        .assertInputError("--constant");
  }

  private Path relationWith(String entryJson) {
    return JsonEdits.copy(
        ri(),
        tmp.resolve("ri-" + Math.abs(entryJson.hashCode()) + ".json"),
        r -> {
          try {
            JsonNode entry = ExampleCase.JSON.readTree(entryJson);
            ArrayNode relations = (ArrayNode) r.get("relations");
            String gsName = entry.get("gs").asText();
            for (int i = 0; i < relations.size(); i++) {
              if (relations.get(i).path("gs").asText().equals(gsName)) {
                relations.set(i, entry);
                return;
              }
            }
            relations.add(entry);
          } catch (IOException e) {
            throw new AssertionError(e);
          }
        });
  }

  private static ObjectNode ref(String name) {
    return ExampleCase.JSON.createObjectNode().put("node", name);
  }

  private static void bumpShape(ObjectNode node) {
    ArrayNode shape = (ArrayNode) node.get("meta").get("shape");
    shape.set(0, shape.numberNode(shape.get(0).asLong() + 1));
  }

  private static void removeNode(ObjectNode graph, String name) {
    ArrayNode nodes = JsonEdits.nodes(graph);
    for (int i = 0; i < nodes.size(); i++) {
      if (nodes.get(i).path("name").asText().equals(name)) {
        nodes.remove(i);
        return;
      }
    }
    throw new AssertionError("no node " + name);
  }
}
