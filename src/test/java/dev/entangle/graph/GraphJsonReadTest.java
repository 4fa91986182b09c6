package dev.entangle.graph;

import static dev.entangle.graph.GraphFiles.OUT_X;
import static dev.entangle.graph.GraphFiles.X;
import static dev.entangle.graph.GraphFiles.graph;
import static dev.entangle.graph.GraphFiles.json;
import static dev.entangle.graph.GraphFiles.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GraphJsonReadTest {
  @TempDir Path dir;

  static final String MLP =
      json(
          """
      {
        'format': 'entangle-fx/1',
        'name': 'mlp-seq',
        'nodes': [
          {'name': 'x', 'op': 'placeholder', 'target': 'x',
           'meta': {'shape': [8, 16], 'dtype': 'float32'}},
          {'name': 'w1', 'op': 'placeholder', 'target': 'w1',
           'meta': {'shape': [32, 16], 'dtype': 'float32', 'tag': 'mlp.fc1.weight'}},
          {'name': 't', 'op': 'call_function', 'target': 'aten.t.default',
           'args': [{'node': 'w1'}], 'kwargs': {},
           'meta': {'shape': [16, 32], 'dtype': 'float32',
                    'stack_trace': 'File \\'model.py\\', line 12, in forward'}},
          {'name': 'mm', 'op': 'call_function', 'target': 'aten.mm.default',
           'args': [{'node': 'x'}, {'node': 't'}], 'kwargs': {},
           'meta': {'shape': [8, 32], 'dtype': 'float32'}},
          {'name': 'output', 'op': 'output', 'target': 'output',
           'args': [[{'node': 'mm'}]]}
        ]
      }
      """);

  @Test
  void readsTheContractExample() {
    Graph g = GraphJson.readGraph(write(dir, "mlp.json", MLP));
    assertEquals("mlp-seq", g.name());
    assertEquals(dir.resolve("mlp.json").toString(), g.source());
    assertEquals(
        List.of("x", "w1", "t", "mm", "output"), g.nodes().stream().map(Node::name).toList());
    Node mm = g.node("mm");
    assertEquals(NodeOp.CALL_FUNCTION, mm.op());
    assertEquals("aten.mm.default", mm.target());
    assertEquals(List.of(new Arg.NodeRef("x"), new Arg.NodeRef("t")), mm.args());
    assertEquals(TensorType.of("float32", 8, 32), mm.type());
    assertEquals(3, mm.index());
    assertEquals("File \"model.py\", line 12, in forward", g.node("t").meta().stackTrace());
    assertSame(g.node("w1"), g.resolve("mlp.fc1.weight"));
    assertEquals(List.of(new Arg.NodeRef("mm")), g.outputs());
    assertEquals(List.of(g.node("x"), g.node("w1")), g.placeholders());
    assertNull(g.node("x").meta().tag());
  }

  @Test
  void decodesEveryArgumentKind() {
    Graph g =
        GraphJson.readGraph(
            write(
                dir,
                "args.json",
                graph(
                    X
                        + ","
                        + "{'name': 'y', 'op': 'call_function', 'target': 'aten.slice.Tensor',"
                        + " 'args': [{'node': 'x'}, 0, -3, 9223372036854775807, -9223372036854775808, 1.5,"
                        + "  2.0, 1e3, 'mean', true, false, null, [1, [2, {'node': 'x'}]], {'dtype': 'float16'},"
                        + "  {'device': 'cuda:0'}, {'layout': 'strided'}, {'memory_format': 'contiguous_format'},"
                        + "  {'sym': 's0 + 1'}, {'float': 'inf'}, {'float': '-inf'}, {'float': 'nan'}, []],"
                        + " 'kwargs': {'z': 1, 'a': {'memory_format': 'preserve_format'}, 'm': 0.5},"
                        + " 'meta': {'shape': [8, 16], 'dtype': 'float32'}},"
                        + OUT_X)));
    Node y = g.node("y");
    List<Arg> expected =
        List.of(
            new Arg.NodeRef("x"),
            new Arg.IntArg(0),
            new Arg.IntArg(-3),
            new Arg.IntArg(Long.MAX_VALUE),
            new Arg.IntArg(Long.MIN_VALUE),
            new Arg.FloatArg(1.5),
            new Arg.FloatArg(2.0),
            new Arg.FloatArg(1000.0),
            new Arg.StrArg("mean"),
            new Arg.BoolArg(true),
            new Arg.BoolArg(false),
            Arg.NONE,
            new Arg.ListArg(
                List.of(
                    new Arg.IntArg(1),
                    new Arg.ListArg(List.of(new Arg.IntArg(2), new Arg.NodeRef("x"))))),
            new Arg.DtypeArg("float16"),
            new Arg.DeviceArg("cuda:0"),
            new Arg.LayoutArg("strided"),
            new Arg.MemoryFormatArg("contiguous_format"),
            new Arg.SymArg("s0 + 1"),
            new Arg.FloatArg(Double.POSITIVE_INFINITY),
            new Arg.FloatArg(Double.NEGATIVE_INFINITY),
            new Arg.FloatArg(Double.NaN),
            new Arg.ListArg(List.of()));
    assertEquals(expected, y.args());
    assertEquals(List.of("z", "a", "m"), List.copyOf(y.kwargs().keySet()));
    assertEquals(new Arg.MemoryFormatArg("preserve_format"), y.kwarg("a"));
    assertEquals(new Arg.FloatArg(0.5), y.kwarg("m"));
    assertEquals(new Arg.IntArg(1), y.kwarg("z"));
  }

  @Test
  void readsSymbolicShapesTuplesAndConstants() {
    Graph g =
        GraphJson.readGraph(
            write(
                dir,
                "meta.json",
                graph(
                    "{'name': 'x', 'op': 'placeholder', 'target': 'x',"
                        + " 'meta': {'shape': [{'sym': 's0'}, 16], 'dtype': 'bfloat16'}},"
                        + "{'name': 'c', 'op': 'get_attr', 'target': '_tensor_constant0',"
                        + " 'meta': {'shape': [], 'dtype': 'int64', 'value': 0}},"
                        + "{'name': 'split', 'op': 'call_function', 'target': 'aten.split.Tensor',"
                        + " 'args': [{'node': 'x'}, 8, 1],"
                        + " 'meta': {'tuple': [{'shape': [{'sym': 's0'}, 8], 'dtype': 'bfloat16'}, null,"
                        + "                    {'shape': [{'sym': 's0'}, 8], 'dtype': 'bfloat16'}]}},"
                        + "{'name': 'last', 'op': 'call_function', 'target': 'getitem',"
                        + " 'args': [{'node': 'split'}, -1],"
                        + " 'meta': {'shape': [{'sym': 's0'}, 8], 'dtype': 'bfloat16'}},"
                        + "{'name': 'output', 'op': 'output', 'target': 'output',"
                        + " 'args': [[{'node': 'last'}, {'node': 'c'}]]}")));
    TensorType x = g.node("x").type();
    assertEquals(List.of(new Dim.Sym("s0"), Dim.of(16)), x.shape());
    assertFalse(x.isConcrete());
    assertEquals(0.0, g.node("c").meta().value());
    assertEquals(TensorType.of("int64"), g.node("c").type());
    Meta split = g.node("split").meta();
    assertTrue(split.tuple());
    assertNull(split.types().get(1));
    assertEquals(3, split.types().size());
    assertNull(g.node("split").type());
    assertEquals(2, g.outputs().size());
    assertTrue(g.node("output").meta().types().isEmpty());
  }

  @Test
  void acceptsAbsentArgsKwargsAndName() {
    Graph g =
        GraphJson.readGraph(
            write(
                dir,
                "min.json",
                graph(
                    X
                        + ","
                        + "{'name': 'n', 'op': 'call_function', 'target': 'aten.rand.default',"
                        + " 'meta': {'shape': [2], 'dtype': 'float32'}},"
                        + OUT_X)));
    assertNull(g.name());
    assertTrue(g.node("n").args().isEmpty());
    assertTrue(g.node("n").kwargs().isEmpty());
  }

  @Test
  void readsAPlainGraphFileAsAOneRankImplementation() {
    DistributedGraph d = GraphJson.readDistributed(write(dir, "one.json", MLP));
    assertEquals(1, d.worldSize());
    assertEquals(1, d.ranks().size());
    assertTrue(d.processGroups().isEmpty());
    assertEquals(List.of(0), d.members("tp"));
    assertEquals("mm", d.rank(0).node("mm").name());
    assertEquals(dir.resolve("one.json").toString(), d.source());
  }

  @Test
  void readsTenThousandNodesQuickly() {
    StringBuilder nodes = new StringBuilder(X);
    String prev = "x";
    for (int i = 0; i < 10_000; i++) {
      String name = "add_" + i;
      nodes
          .append(",{'name': '")
          .append(name)
          .append("', 'op': 'call_function',")
          .append(" 'target': 'aten.add.Tensor', 'args': [{'node': '")
          .append(prev)
          .append("'}, {'node': 'x'}], 'kwargs': {'alpha': 1},")
          .append(" 'meta': {'shape': [8, 16], 'dtype': 'float32',")
          .append(" 'stack_trace': 'File model.py, line ")
          .append(i)
          .append("'}}");
      prev = name;
    }
    nodes
        .append(",{'name': 'output', 'op': 'output', 'target': 'output', 'args': [[{'node': '")
        .append(prev)
        .append("'}]]}");
    Path file = write(dir, "big.json", graph(nodes.toString()));
    long start = System.nanoTime();
    Graph g = GraphJson.readGraph(file);
    double seconds = (System.nanoTime() - start) / 1e9;
    assertEquals(10_002, g.nodes().size());
    assertTrue(seconds < 10, "reading 10k nodes took " + seconds + " s");
  }
}
