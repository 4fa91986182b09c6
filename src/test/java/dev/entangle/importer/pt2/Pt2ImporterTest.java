package dev.entangle.importer.pt2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.graph.Arg;
import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.Graph;
import dev.entangle.graph.Node;
import dev.entangle.graph.NodeOp;
import dev.entangle.graph.TensorType;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The programs of torch.export archives, read into graphs. */
class Pt2ImporterTest {
  private static List<String> names(Graph g) {
    return g.nodes().stream().map(Node::name).toList();
  }

  @Test
  void inputsArePlaceholdersTaggedWithTheirQualifiedNames() {
    Graph g = Pt2Importer.importGraph(Pt2Fixtures.archive("mlp.pt2"));
    assertEquals("mlp", g.name());
    List<Node> in = g.placeholders();
    assertEquals(
        List.of("p_fc1_weight", "p_fc1_bias", "p_fc2_weight", "b_scale", "x"),
        in.stream().map(Node::name).toList());
    assertEquals("fc1.weight", in.get(0).meta().tag());
    assertEquals("scale", in.get(3).meta().tag());
    assertNull(in.get(4).meta().tag());
    assertEquals(TensorType.of("float32", 8, 4), in.get(0).type());
    assertEquals(TensorType.of("float32", 2, 4), in.get(4).type());
    assertEquals(g.node("fc1.weight"), null);
    assertEquals(in.get(0), g.resolve("fc1.weight"));
  }

  @Test
  void operatorCallsKeepTheirTargetsArgumentsTypesAndStackTraces() {
    Graph g = Pt2Importer.importGraph(Pt2Fixtures.archive("mlp.pt2"));
    Node permute = g.node("permute");
    assertEquals("aten.permute.default", permute.target());
    assertEquals(NodeOp.CALL_FUNCTION, permute.op());
    assertEquals(
        List.of(
            new Arg.NodeRef("p_fc1_weight"),
            new Arg.ListArg(List.of(new Arg.IntArg(1), new Arg.IntArg(0)))),
        permute.args());
    assertEquals(TensorType.of("float32", 4, 8), permute.type());
    Node addmm = g.node("addmm");
    assertEquals("aten.addmm.default", addmm.target());
    assertEquals(
        List.of(new Arg.NodeRef("p_fc1_bias"), new Arg.NodeRef("x"), new Arg.NodeRef("permute")),
        addmm.args());
    String trace = g.node("relu").meta().stackTrace();
    assertTrue(trace.startsWith("File \"scripts/make-pt2-testdata\", line "), trace);
    assertTrue(trace.contains("return self.fc2(torch.relu(self.fc1(x))) * self.scale"), trace);
    assertNull(g.placeholders().get(0).meta().stackTrace());
    assertEquals(List.of(new Arg.NodeRef("mul")), g.outputs());
    assertEquals("output", g.nodes().get(g.nodes().size() - 1).name());
  }

  @Test
  void severalResultsAreATupleNodeWithAGetitemForEachResultUsed() {
    Graph g = Pt2Importer.importGraph(Pt2Fixtures.archive("norm-split.pt2"));
    Node norm = g.node("native_layer_norm");
    assertTrue(norm.meta().tuple());
    assertEquals(3, norm.meta().types().size());
    assertEquals(TensorType.of("float32", 2, 1), norm.meta().types().get(1));
    Node first = g.node("getitem");
    assertEquals("getitem", first.target());
    assertEquals(List.of(new Arg.NodeRef("native_layer_norm"), new Arg.IntArg(0)), first.args());
    assertFalse(names(g).stream().anyMatch(n -> n.contains("unused")), names(g).toString());
    assertEquals(1.0e-5, ((Arg.FloatArg) norm.arg(4)).value());
    Node split = g.node("split_with_sizes");
    assertTrue(split.meta().tuple());
    assertEquals(
        List.of(new Arg.NodeRef("split_with_sizes"), new Arg.IntArg(1)),
        g.node("getitem_4").args());
    assertEquals(
        List.of(new Arg.NodeRef("getitem_3"), new Arg.NodeRef("getitem_4")), g.node("mul").args());
  }

  @Test
  void keywordArgumentsAndOperatorsWithoutResults() {
    Graph g = Pt2Importer.importGraph(Pt2Fixtures.archive("norm-split.pt2"));
    Node copy = g.node("_to_copy");
    assertEquals(Map.of("dtype", new Arg.DtypeArg("float16")), copy.kwargs());
    assertEquals(TensorType.of("float16", 2, 6), copy.type());
    Node check = g.node("_assert_tensor_metadata");
    assertTrue(check.meta().tuple());
    assertTrue(check.meta().types().isEmpty());
    assertEquals(new Arg.DtypeArg("float32"), check.arg(3));
    assertEquals(Arg.NONE, check.arg(1));
    assertEquals(new Arg.DeviceArg("cpu"), check.kwarg("device"));
    assertEquals(new Arg.LayoutArg("strided"), check.kwarg("layout"));
  }

  @Test
  void oneArchivePerRankGivesADistributedGraph() {
    DistributedGraph d =
        Pt2Importer.importRanks(
            List.of(
                Pt2Fixtures.archive("reduce-rank0.pt2"), Pt2Fixtures.archive("reduce-rank1.pt2")),
            Map.of());
    assertEquals(2, d.worldSize());
    assertEquals("reduce-rank1", d.rank(1).name());
    Node reduce = d.rank(0).node("all_reduce");
    assertEquals("_c10d_functional.all_reduce.default", reduce.target());
    assertEquals(
        List.of(new Arg.NodeRef("mm"), new Arg.StrArg("sum"), new Arg.StrArg("0")), reduce.args());
    assertEquals(List.of(0, 1), d.members("0"));
  }
}
