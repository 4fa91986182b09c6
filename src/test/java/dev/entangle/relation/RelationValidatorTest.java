package dev.entangle.relation;

import static dev.entangle.relation.RelationReaderTest.json;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.graph.Arg;
import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.Graph;
import dev.entangle.graph.Meta;
import dev.entangle.graph.Node;
import dev.entangle.graph.NodeOp;
import dev.entangle.graph.TensorType;
import dev.entangle.util.InputException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RelationValidatorTest {
  @TempDir Path dir;

  /** Builds a graph: placeholders (name, tag or null, type), a tuple node, then the output. */
  private static Graph graph(String source, Object... placeholders) {
    List<Node> nodes = new ArrayList<>();
    for (int i = 0; i < placeholders.length; i += 3) {
      String name = (String) placeholders[i];
      nodes.add(
          new Node(
              name,
              NodeOp.PLACEHOLDER,
              name,
              List.of(),
              Map.of(),
              new Meta(
                  List.of((TensorType) placeholders[i + 2]),
                  false,
                  null,
                  (String) placeholders[i + 1],
                  null),
              nodes.size()));
    }
    nodes.add(
        new Node(
            "split",
            NodeOp.CALL_FUNCTION,
            "aten.split.Tensor",
            List.of(new Arg.NodeRef(nodes.get(0).name()), new Arg.IntArg(1)),
            Map.of(),
            new Meta(
                List.of(TensorType.of("float32", 1, 16), TensorType.of("float32", 1, 16)),
                true,
                null,
                null,
                null),
            nodes.size()));
    nodes.add(
        new Node(
            "output",
            NodeOp.OUTPUT,
            "output",
            List.of(new Arg.ListArg(List.of(new Arg.NodeRef(nodes.get(nodes.size() - 1).name())))),
            Map.of(),
            Meta.empty(),
            nodes.size()));
    return new Graph(null, source, nodes);
  }

  private static final Graph GS =
      graph(
          "gs.json",
          "x",
          null,
          TensorType.of("float32", 8, 16),
          "w_out",
          "model.out.weight",
          TensorType.of("float32", 16, 32),
          "ln",
          null,
          TensorType.of("float32", 16),
          "kv",
          null,
          TensorType.of("float32", 256, 4),
          "loss",
          null,
          TensorType.of("float32"));

  private static Graph rank(int k) {
    return graph(
        "gd.json rank " + k,
        "x",
        null,
        TensorType.of("float32", 8, 16),
        "w_out",
        null,
        TensorType.of("float32", 16, 16),
        "ln",
        "layer_norm.weight",
        TensorType.of("float32", 16),
        "ln_half",
        null,
        TensorType.of("float16", 16),
        "kv",
        null,
        TensorType.of("float32", 256, 4),
        "kv_short",
        null,
        TensorType.of("float32", 128, 4),
        "loss",
        null,
        TensorType.of("float32"));
  }

  private static final DistributedGraph GD =
      new DistributedGraph(2, Map.of(), List.of(rank(0), rank(1)), "gd.json");

  private RelationFile relations(String json) throws IOException {
    Path file = dir.resolve("ri.json");
    Files.writeString(file, json(json));
    return RelationReader.read(file, 2);
  }

  private static final String VALID_ENTRIES =
      "{'gs': 'x', 'replicate': true},"
          + "{'gs': 'model.out.weight', 'shard': 1, 'as': 'w_out'},"
          + "{'gs': 'ln', 'gd': 'r1.layer_norm.weight'},"
          + "{'gs': 'kv', 'gd': 'concat(slice(r0.kv, dim=0, start=0, end=128),"
          + " slice(r1.kv, dim=0, start=-128, end=9223372036854775807), dim=0)'}";

  private static String file(String entries, String rest) {
    return "{'format': 'entangle-relation/1', 'relations': [" + entries + "]" + rest + "}";
  }

  private String error(String json) throws IOException {
    RelationFile rel = relations(json);
    InputException e =
        assertThrows(InputException.class, () -> RelationValidator.validate(GS, GD, rel));
    String m = e.getMessage();
    assertTrue(m.startsWith(rel.source() + ": "), m);
    assertFalse(m.contains("\n"), m);
    assertFalse(m.contains("Exception"), m);
    return m.substring(rel.source().length() + 2);
  }

  private static void assertContains(String message, String... parts) {
    for (String p : parts) {
      assertTrue(message.contains(p), () -> "expected <" + p + "> in: " + message);
    }
  }

  @Test
  void aCorrectRelationFilePasses() throws IOException {
    RelationFile rel =
        relations(
            file(
                VALID_ENTRIES,
                ", 'equalities': [['slice(r0.kv, dim=0, start=0, end=128)', 'r1.kv_short']],"
                    + " 'outputs': ['loss', 'model.out.weight'],"
                    + " 'expect': [{'gs': 'loss', 'gd': 'r0.loss'}, {'gs': 'loss', 'gd': 'r1.loss'}]"));
    assertDoesNotThrow(() -> RelationValidator.validate(GS, GD, rel));
  }

  @Test
  void shardsThatDoNotAddUp() throws IOException {
    assertEquals(
        "relations[1] (gs \"w_out\"): concat(r0.w_out, r1.w_out, dim=0) has shape"
            + " [32, 16] but w_out has shape [16, 32]; check the shard dim, the slice bounds and the"
            + " G_d tensors the entry names.",
        error(file("{'gs': 'x', 'gd': 'r0.x'}, {'gs': 'w_out', 'shard': 0}", "")));
  }

  @Test
  void dtypeMismatch() throws IOException {
    assertContains(
        error(file("{'gs': 'ln', 'gd': 'r0.ln_half'}", "")),
        "relations[0] (gs \"ln\"): r0.ln_half has dtype float16 but ln has dtype float32");
  }

  @Test
  void aRangeIsStatedOnIntegerTensorsOnly() throws IOException {
    assertEquals(
        "relations[0] (gs \"x\"): \"in_range\" states a range of integers, but x has dtype"
            + " float32; state it on integer tensors (ids, positions) only.",
        error(file("{'gs': 'x', 'replicate': true, 'in_range': [0, 8]}", "")));
  }

  @Test
  void unknownGsName() throws IOException {
    assertContains(
        error(file("{'gs': 'w_in', 'shard': 0}", "")),
        "relations[0] (gs \"w_in\"): \"w_in\" is neither a node name nor a meta.tag in G_s"
            + " (gs.json)");
  }

  @Test
  void gsOutputNodeAndTupleNode() throws IOException {
    assertContains(
        error(file("{'gs': 'output', 'gd': 'r0.x'}", "")),
        "relations[0] (gs \"output\"): \"output\" is the output node");
    assertContains(
        error(file("{'gs': 'split', 'gd': 'r0.x'}", "")),
        "\"split\" (node \"split\") returns a tuple; relate its getitem nodes instead");
  }

  @Test
  void gdReferences() throws IOException {
    assertContains(
        error(file("{'gs': 'x', 'gd': 'x'}", "")),
        "relations[0] (gs \"x\"): x has no rank; name G_d tensors as rK.NAME, e.g. r0.x.");
    assertContains(
        error(file("{'gs': 'x', 'gd': 'r2.x'}", "")),
        "r2.x names rank 2 but G_d (gd.json) has 2 ranks (r0 to r1)");
    assertContains(
        error(file("{'gs': 'x', 'gd': 'sum(r0.x, r1.y)'}", "")),
        "r1.y: rank 1 of G_d (gd.json rank 1) has no node or meta.tag \"y\"");
    assertContains(
        error(file("{'gs': 'x', 'gd': 'r0.output'}", "")), "r0.output is the output node");
    assertContains(
        error(file("{'gs': 'x', 'gd': 'r0.split'}", "")),
        "r0.split (node \"split\") returns a tuple");
  }

  @Test
  void shapeErrorsInsideTheExpressionNameTheEntry() throws IOException {
    assertContains(
        error(file("{'gs': 'x', 'gd': 'sum(r0.x, r1.kv)'}", "")),
        "relations[0] (gs \"x\"): in sum(r0.x, r1.kv): the operands differ in shape");
  }

  @Test
  void equalitiesOfDifferentShapes() throws IOException {
    assertContains(
        error(file(VALID_ENTRIES, ", 'equalities': [['r0.kv', 'r1.kv_short']]")),
        "equalities[0]: r1.kv_short is float32[128, 4] but r0.kv is float32[256, 4]");
    assertContains(
        error(file(VALID_ENTRIES, ", 'equalities': [['r0.kv', 'r1.nope']]")),
        "equalities[0][1]: r1.nope: rank 1 of G_d");
  }

  @Test
  void outputsAndExpectNameGsTensors() throws IOException {
    assertContains(
        error(file(VALID_ENTRIES, ", 'outputs': ['loss', 'los']")),
        "outputs[1]: \"los\" is neither a node name nor a meta.tag in G_s");
    assertContains(
        error(file(VALID_ENTRIES, ", 'outputs': ['output']")),
        "outputs[0]: \"output\" is the output node");
    assertContains(
        error(file(VALID_ENTRIES, ", 'expect': [{'gs': 'lost', 'gd': 'r0.loss'}]")),
        "expect[0] (gs \"lost\"): \"lost\" is neither");
    assertContains(
        error(file(VALID_ENTRIES, ", 'expect': [{'gs': 'loss', 'gd': 'r0.nope'}]")),
        "expect[0] (gs \"loss\"): r0.nope");
  }

  @Test
  void anExpectedResultOfAnotherShapeIsTheModelsViolationNotBadInput() throws IOException {
    // a rank returning its shard where the whole tensor is expected (an all-gather left out)
    RelationFile rel = relations(file(VALID_ENTRIES, ", 'expect': [{'gs': 'loss', 'gd': 'r0.x'}]"));
    assertDoesNotThrow(() -> RelationValidator.validate(GS, GD, rel));
    assertContains(
        error(file("{'gs': 'loss', 'gd': 'r0.x'}", "")),
        "relations[0] (gs \"loss\"): r0.x has shape [8, 16] but loss has shape []");
  }

  @Test
  void theFirstProblemIsReported() throws IOException {
    assertContains(
        error(file("{'gs': 'x', 'gd': 'r0.nope'}, {'gs': 'nope', 'gd': 'r0.x'}", "")),
        "relations[0]");
  }
}
