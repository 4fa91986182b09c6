package dev.entangle.graph;

import static dev.entangle.graph.GraphFiles.assertContains;
import static dev.entangle.graph.GraphFiles.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.entangle.util.InputException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GraphJsonWriteTest {
  @TempDir Path dir;

  private static Meta meta(String dtype, long... sizes) {
    return new Meta(List.of(TensorType.of(dtype, sizes)), false, null, null, null);
  }

  /** A graph built in code with every kind of argument and meta. */
  static Graph sample(String name) {
    Map<String, Arg> kwargs = new LinkedHashMap<>();
    kwargs.put("zeta", new Arg.IntArg(Long.MAX_VALUE));
    kwargs.put("alpha", new Arg.FloatArg(2.0));
    kwargs.put("memory_format", new Arg.MemoryFormatArg("contiguous_format"));
    List<Arg> args =
        List.of(
            new Arg.NodeRef("x"),
            new Arg.IntArg(-1),
            new Arg.FloatArg(1e-5),
            new Arg.FloatArg(Double.NaN),
            new Arg.FloatArg(Double.POSITIVE_INFINITY),
            new Arg.FloatArg(Double.NEGATIVE_INFINITY),
            new Arg.FloatArg(-0.0),
            new Arg.StrArg("sum \"quoted\" ünïcode"),
            new Arg.BoolArg(true),
            Arg.NONE,
            new Arg.ListArg(List.of(new Arg.IntArg(3), new Arg.ListArg(List.of()))),
            new Arg.DtypeArg("bfloat16"),
            new Arg.DeviceArg("cuda:1"),
            new Arg.LayoutArg("strided"),
            new Arg.SymArg("s0 * 2"));
    TensorType sym = new TensorType(List.of(new Dim.Sym("s0"), Dim.of(4)), "float16");
    List<Node> nodes =
        List.of(
            new Node(
                "x",
                NodeOp.PLACEHOLDER,
                "x",
                List.of(),
                Map.of(),
                new Meta(List.of(sym), false, null, "model.x", null),
                0),
            new Node(
                "c",
                NodeOp.GET_ATTR,
                "_tensor_constant0",
                List.of(),
                Map.of(),
                new Meta(List.of(TensorType.of("int64")), false, null, null, 0.0),
                1),
            new Node(
                "h",
                NodeOp.GET_ATTR,
                "_tensor_constant1",
                List.of(),
                Map.of(),
                new Meta(List.of(TensorType.of("float32")), false, null, null, 0.5),
                2),
            new Node(
                "f",
                NodeOp.CALL_FUNCTION,
                "aten.f.default",
                args,
                kwargs,
                new Meta(List.of(sym), false, "File \"m.py\", line 3\n    y = f(x)", null, null),
                3),
            new Node(
                "split",
                NodeOp.CALL_FUNCTION,
                "aten.split.Tensor",
                List.of(new Arg.NodeRef("f"), new Arg.IntArg(2)),
                Map.of(),
                new Meta(
                    Arrays.asList(TensorType.of("float16", 2, 4), null), true, null, null, null),
                4),
            new Node(
                "g",
                NodeOp.CALL_FUNCTION,
                "getitem",
                List.of(new Arg.NodeRef("split"), new Arg.IntArg(0)),
                Map.of(),
                meta("float16", 2, 4),
                5),
            new Node(
                "m",
                NodeOp.CALL_METHOD,
                "view",
                List.of(new Arg.NodeRef("g")),
                Map.of(),
                meta("float16", 8),
                6),
            new Node(
                "output",
                NodeOp.OUTPUT,
                "output",
                List.of(
                    new Arg.ListArg(List.of(new Arg.NodeRef("m"), new Arg.NodeRef("c"), Arg.NONE))),
                Map.of(),
                Meta.empty(),
                7));
    return new Graph(name, "built in code", nodes);
  }

  private static void assertSameGraph(Graph expected, Graph actual) {
    assertEquals(expected.name(), actual.name());
    assertEquals(expected.nodes(), actual.nodes());
    for (int i = 0; i < expected.nodes().size(); i++) {
      assertEquals(
          List.copyOf(expected.nodes().get(i).kwargs().keySet()),
          List.copyOf(actual.nodes().get(i).kwargs().keySet()));
    }
  }

  @Test
  void writeThenReadGivesTheSameGraph() {
    Graph g = sample("sample");
    Path file = dir.resolve("g.json");
    GraphJson.write(g, file);
    Graph back = GraphJson.readGraph(file);
    assertSameGraph(g, back);
    assertEquals(file.toString(), back.source());
  }

  @Test
  void readWriteReadIsStableText() throws IOException {
    Path first = dir.resolve("a.json");
    GraphJson.write(sample(null), first);
    Path second = dir.resolve("b.json");
    GraphJson.write(GraphJson.readGraph(first), second);
    assertEquals(Files.readString(first), Files.readString(second));
  }

  @Test
  void integersStayIntegersAndSpecialFloatsAreTagged() throws IOException {
    Path file = dir.resolve("g.json");
    GraphJson.write(sample(null), file);
    String text = Files.readString(file);
    assertContains(
        text,
        "\"zeta\":9223372036854775807",
        "\"alpha\":2.0",
        "1.0E-5",
        "{\"float\":\"nan\"}",
        "{\"float\":\"inf\"}",
        "{\"float\":\"-inf\"}",
        "-0.0",
        "\"value\":0}",
        "\"value\":0.5}",
        "{\"sym\":\"s0\"}",
        "[{\"node\":\"x\"},-1,");
    assertFalse(text.contains("NaN"), text);
    assertFalse(text.contains("Infinity"), text);
  }

  @Test
  void writesOneNodePerLine() throws IOException {
    Path file = dir.resolve("g.json");
    Graph g = sample("layout");
    GraphJson.write(g, file);
    List<String> lines = Files.readAllLines(file);
    assertEquals("{", lines.get(0));
    assertEquals("  \"format\": \"entangle-fx/1\",", lines.get(1));
    assertEquals("  \"name\": \"layout\",", lines.get(2));
    assertEquals("  \"nodes\": [", lines.get(3));
    assertTrue(lines.get(4).startsWith("    {\"name\":\"x\",\"op\":\"placeholder\""), lines.get(4));
    assertEquals(3 + g.nodes().size() + 2 + 1, lines.size());
    assertEquals("}", lines.get(lines.size() - 1));
  }

  @Test
  void toJsonFollowsTheContract() {
    ObjectNode json = GraphJson.toJson(sample("s"));
    assertEquals("entangle-fx/1", json.get("format").asText());
    JsonNode x = json.get("nodes").get(0);
    assertFalse(x.has("args"), "placeholders carry no empty args");
    assertEquals("model.x", x.get("meta").get("tag").asText());
    JsonNode f = json.get("nodes").get(3);
    assertEquals("call_function", f.get("op").asText());
    assertTrue(f.get("args").get(1).isIntegralNumber());
    assertTrue(f.get("args").get(2).isFloatingPointNumber());
    JsonNode split = json.get("nodes").get(4);
    assertTrue(split.get("kwargs").isEmpty());
    assertTrue(split.get("meta").get("tuple").get(1).isNull());
    JsonNode out = json.get("nodes").get(7);
    assertFalse(out.has("meta"));
    assertTrue(out.get("args").get(0).isArray());
  }

  @Test
  void distributedRoundTrip() throws IOException {
    DistributedGraph d =
        new DistributedGraph(
            2,
            Map.of("tp", List.of(0, 1), "a", List.of(1)),
            List.of(sample("r0"), sample(null)),
            "built in code");
    Path file = dir.resolve("gd.json");
    GraphJson.write(d, file);
    DistributedGraph back = GraphJson.readDistributed(file);
    assertEquals(2, back.worldSize());
    assertEquals(d.processGroups(), back.processGroups());
    for (int k = 0; k < 2; k++) {
      assertSameGraph(d.rank(k), back.rank(k));
    }
    ObjectNode json = GraphJson.toJson(d);
    assertFalse(json.get("ranks").get(0).has("format"));
    assertEquals(2, json.get("world_size").asInt());
    String text = Files.readString(file);
    assertContains(text, "\"process_groups\": {\"a\":[1],\"tp\":[0,1]}", "\"ranks\": [\n");
  }

  @Test
  void readThenWriteKeepsAHandWrittenFile() {
    Path file = write(dir, "mlp.json", GraphJsonReadTest.MLP);
    Graph g = GraphJson.readGraph(file);
    Path out = dir.resolve("out.json");
    GraphJson.write(g, out);
    assertSameGraph(g, GraphJson.readGraph(out));
  }

  @Test
  void randomFloatsRoundTripExactly() {
    Random random = new Random(7);
    List<Arg> args = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      args.add(new Arg.FloatArg(Double.longBitsToDouble(random.nextLong())));
      args.add(new Arg.IntArg(random.nextLong()));
    }
    Graph g =
        new Graph(
            null,
            "random",
            List.of(
                new Node(
                    "f",
                    NodeOp.CALL_FUNCTION,
                    "aten.f.default",
                    args,
                    Map.of(),
                    meta("float32", 1),
                    0),
                new Node(
                    "output",
                    NodeOp.OUTPUT,
                    "output",
                    List.of(new Arg.ListArg(List.of(new Arg.NodeRef("f")))),
                    Map.of(),
                    Meta.empty(),
                    1)));
    Path file = dir.resolve("r.json");
    GraphJson.write(g, file);
    assertEquals(g.nodes(), GraphJson.readGraph(file).nodes());
  }

  @Test
  void writingToAMissingFolderIsAnInputError() {
    Path file = dir.resolve("no/such/folder/g.json");
    InputException e =
        assertThrows(InputException.class, () -> GraphJson.write(sample(null), file));
    assertContains(e.getMessage(), file.toString(), "cannot write");
    GraphFiles.assertOneParagraph(e.getMessage());
  }
}
