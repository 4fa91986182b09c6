package dev.entangle.importer;

import static dev.entangle.importer.Snippets.importText;
import static dev.entangle.importer.Snippets.module;
import static dev.entangle.importer.Snippets.node;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.graph.Arg;
import dev.entangle.graph.Dim;
import dev.entangle.graph.Graph;
import dev.entangle.graph.Node;
import dev.entangle.graph.NodeOp;
import dev.entangle.graph.TensorType;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GraphCodeImporterTest {
  @TempDir Path dir;

  @Test
  void placeholdersCallsAndOutputInOrder() {
    Graph g =
        importText(
            dir,
            module(
                "x: \"f32[8, 16]\", w: \"bf16[32, 16]\"",
                "t: \"bf16[16, 32]\" = torch.ops.aten.t.default(w);  w = None",
                "mm: \"f32[8, 32]\" = torch.ops.aten.mm.default(x, t);  x = t = None",
                "return (mm,)"));
    assertEquals(
        List.of("x", "w", "t", "mm", "output"), g.nodes().stream().map(Node::name).toList());
    for (int i = 0; i < g.nodes().size(); i++) {
      assertEquals(i, g.nodes().get(i).index());
    }
    Node x = node(g, "x");
    assertEquals(NodeOp.PLACEHOLDER, x.op());
    assertEquals("x", x.target());
    assertEquals(TensorType.of("float32", 8, 16), x.type());
    assertEquals(TensorType.of("bfloat16", 32, 16), node(g, "w").type());
    Node mm = node(g, "mm");
    assertEquals(NodeOp.CALL_FUNCTION, mm.op());
    assertEquals("aten.mm.default", mm.target());
    assertEquals(List.of(new Arg.NodeRef("x"), new Arg.NodeRef("t")), mm.args());
    assertEquals(TensorType.of("float32", 8, 32), mm.type());
    Node out = g.outputNode();
    assertEquals("output", out.name());
    assertEquals(NodeOp.OUTPUT, out.op());
    assertEquals(List.of(new Arg.ListArg(List.of(new Arg.NodeRef("mm")))), out.args());
    assertEquals("g", g.name());
  }

  @Test
  void dtypeAbbreviations() {
    String[][] cases = {
      {"f32", "float32"},
      {"f16", "float16"},
      {"bf16", "bfloat16"},
      {"f64", "float64"},
      {"i64", "int64"},
      {"i32", "int32"},
      {"i16", "int16"},
      {"i8", "int8"},
      {"u8", "uint8"},
      {"b8", "bool"},
      {"c64", "complex64"},
      {"c128", "complex128"}
    };
    StringBuilder params = new StringBuilder();
    for (int i = 0; i < cases.length; i++) {
      params
          .append(i == 0 ? "" : ", ")
          .append("a")
          .append(i)
          .append(": \"")
          .append(cases[i][0])
          .append("[2]\"");
    }
    Graph g = importText(dir, module(params.toString(), "return (a0,)"));
    for (int i = 0; i < cases.length; i++) {
      assertEquals(TensorType.of(cases[i][1], 2), node(g, "a" + i).type(), cases[i][0]);
    }
  }

  @Test
  void scalarShapesStridesAndDevicesInAnnotations() {
    Graph g =
        importText(dir, module("a: \"f32[]\", b: \"f32[8, 16][16, 1]cuda:0\"", "return (a, b)"));
    assertEquals(TensorType.of("float32"), node(g, "a").type());
    assertEquals(TensorType.of("float32", 8, 16), node(g, "b").type());
  }

  @Test
  void symbolicSizesAndSymbolicScalars() {
    Graph g =
        importText(
            dir,
            module(
                "s0: \"Sym(s0)\", x: \"f32[s0, 2*s0 + 1]\"",
                "sym_size_int: \"Sym(s0)\" = torch.ops.aten.sym_size.int(x, 0)",
                "add: \"Sym(s0 + 1)\" = sym_size_int + 1",
                "ge: \"Sym(u0 >= 0)\" = sym_size_int >= 0",
                "view: \"f32[s0 + 1, 4]\" = torch.ops.aten.view.default(x, [add, 4])",
                "view_1: \"f32[s0]\" = torch.ops.aten.view.default(x, [sym_size_int * 2 - s0, -1])",
                "return (view, view_1, ge)"));
    assertEquals(new TensorType(List.of(), "int64"), node(g, "s0").type());
    assertEquals(List.of(new Dim.Sym("s0"), new Dim.Sym("2*s0 + 1")), node(g, "x").type().shape());
    Node size = node(g, "sym_size_int");
    assertEquals("aten.sym_size.int", size.target());
    assertEquals(List.of(new Arg.NodeRef("x"), new Arg.IntArg(0)), size.args());
    Node add = node(g, "add");
    assertEquals("add", add.target());
    assertEquals(List.of(new Arg.NodeRef("sym_size_int"), new Arg.IntArg(1)), add.args());
    assertEquals("int64", add.type().dtype());
    Node ge = node(g, "ge");
    assertEquals("ge", ge.target());
    assertEquals("bool", ge.type().dtype());
    assertEquals(
        new Arg.ListArg(List.of(new Arg.NodeRef("add"), new Arg.IntArg(4))),
        node(g, "view").arg(1));
    assertEquals(
        new Arg.ListArg(List.of(new Arg.SymArg("sym_size_int * 2 - s0"), new Arg.IntArg(-1))),
        node(g, "view_1").arg(1));
  }

  @Test
  void unannotatedSymbolicArithmeticIsDerived() {
    Graph g =
        importText(
            dir,
            module(
                "s0: \"Sym(s0)\"",
                "sym = torch.ops.aten.sym_size.int(s0, 0)",
                "mul = sym * 2",
                "lt = mul < 8",
                "div = operator.truediv(mul, 2)",
                "neg = -sym",
                "return (lt, div, neg)"));
    assertEquals("int64", node(g, "sym").type().dtype());
    assertEquals("int64", node(g, "mul").type().dtype());
    assertEquals("bool", node(g, "lt").type().dtype());
    assertEquals("truediv", node(g, "div").target());
    assertEquals("float64", node(g, "div").type().dtype());
    assertEquals("neg", node(g, "neg").target());
    assertEquals(List.of(new Arg.NodeRef("sym")), node(g, "neg").args());
  }

  @Test
  void literals() {
    Graph g =
        importText(
            dir,
            module(
                "x: \"f32[4]\"",
                "a: \"f32[4]\" = torch.ops.test.op.default(x, 3, -2, 1e-05, -0.5, inf, -inf, nan,"
                    + " 'it''s', \"dq\", None, True, False, [1, [2, 3]], (4, 5), (), 9223372036854775807,"
                    + " -9223372036854775808, 0x10, 'esc\\n\\'')",
                "return (a,)"));
    List<Arg> args = node(g, "a").args();
    assertEquals(new Arg.NodeRef("x"), args.get(0));
    assertEquals(new Arg.IntArg(3), args.get(1));
    assertEquals(new Arg.IntArg(-2), args.get(2));
    assertEquals(new Arg.FloatArg(1e-05), args.get(3));
    assertEquals(new Arg.FloatArg(-0.5), args.get(4));
    assertEquals(new Arg.FloatArg(Double.POSITIVE_INFINITY), args.get(5));
    assertEquals(new Arg.FloatArg(Double.NEGATIVE_INFINITY), args.get(6));
    assertTrue(Double.isNaN(((Arg.FloatArg) args.get(7)).value()));
    assertEquals(new Arg.StrArg("its"), args.get(8));
    assertEquals(new Arg.StrArg("dq"), args.get(9));
    assertEquals(Arg.NONE, args.get(10));
    assertEquals(new Arg.BoolArg(true), args.get(11));
    assertEquals(new Arg.BoolArg(false), args.get(12));
    assertEquals(
        new Arg.ListArg(
            List.of(
                new Arg.IntArg(1), new Arg.ListArg(List.of(new Arg.IntArg(2), new Arg.IntArg(3))))),
        args.get(13));
    assertEquals(new Arg.ListArg(List.of(new Arg.IntArg(4), new Arg.IntArg(5))), args.get(14));
    assertEquals(new Arg.ListArg(List.of()), args.get(15));
    assertEquals(new Arg.IntArg(Long.MAX_VALUE), args.get(16));
    assertEquals(new Arg.IntArg(Long.MIN_VALUE), args.get(17));
    assertEquals(new Arg.IntArg(16), args.get(18));
    assertEquals(new Arg.StrArg("esc\n'"), args.get(19));
  }

  @Test
  void torchConstantsDevicesAndKeywordArguments() {
    Graph g =
        importText(
            dir,
            module(
                "x: \"i64[4]\"",
                "a: \"f32[4]\" = torch.ops.aten._to_copy.default(x, dtype = torch.float32, layout ="
                    + " torch.strided, device = device(type='cuda', index=0))",
                "b: \"i32[]\" = torch.ops.aten.zeros.default([], dtype = torch.int, device ="
                    + " device(type='cuda'), pin_memory = False)",
                "c: \"f32[4]\" = torch.ops.aten.clone.default(a, memory_format = torch.contiguous_format)",
                "d: \"f32[4]\" = torch.ops.test.op.default(a, torch.long, torch.bool, torch.half,"
                    + " torch.float, torch.bfloat16, torch.double, torch.channels_last, device(type='cpu'))",
                "return (b, c, d)"));
    Map<String, Arg> kw = node(g, "a").kwargs();
    assertEquals(List.of("dtype", "layout", "device"), List.copyOf(kw.keySet()));
    assertEquals(new Arg.DtypeArg("float32"), kw.get("dtype"));
    assertEquals(new Arg.LayoutArg("strided"), kw.get("layout"));
    assertEquals(new Arg.DeviceArg("cuda:0"), kw.get("device"));
    assertEquals(new Arg.DtypeArg("int32"), node(g, "b").kwarg("dtype"));
    assertEquals(new Arg.DeviceArg("cuda"), node(g, "b").kwarg("device"));
    assertEquals(new Arg.MemoryFormatArg("contiguous_format"), node(g, "c").kwarg("memory_format"));
    assertEquals(
        Arrays.asList(
            new Arg.NodeRef("a"),
            new Arg.DtypeArg("int64"),
            new Arg.DtypeArg("bool"),
            new Arg.DtypeArg("float16"),
            new Arg.DtypeArg("float32"),
            new Arg.DtypeArg("bfloat16"),
            new Arg.DtypeArg("float64"),
            new Arg.MemoryFormatArg("channels_last"),
            new Arg.DeviceArg("cpu")),
        node(g, "d").args());
  }

  @Test
  void operatorWithoutOverloadIsTheDefaultOverload() {
    Graph g =
        importText(
            dir,
            module("x: \"f32[4]\"", "add: \"f32[4]\" = torch.ops.aten.add(x, x)", "return (add,)"));
    assertEquals("aten.add.default", node(g, "add").target());
  }

  @Test
  void multiOutputCallsAndGetitems() {
    Graph g =
        importText(
            dir,
            module(
                "x: \"f32[8, 16]\"",
                "native_dropout = torch.ops.aten.native_dropout.default(x, 0.1, True);  x = None",
                "getitem: \"f32[8, 16]\" = native_dropout[0]",
                "getitem_1: \"b8[8, 16]\" = native_dropout[1];  native_dropout = None",
                "split = torch.ops.aten.split_with_sizes.default(getitem, [4, 4, 8], 1)",
                "getitem_2: \"f32[8, 8]\" = split[2]",
                "max_1 = torch.ops.aten.max.dim(getitem, -1)",
                "getitem_3: \"f32[8]\" = operator.getitem(max_1, 0)",
                "return (getitem_1, getitem_2, getitem_3)"));
    Node drop = node(g, "native_dropout");
    assertTrue(drop.meta().tuple());
    assertEquals(
        List.of(TensorType.of("float32", 8, 16), TensorType.of("bool", 8, 16)),
        drop.meta().types());
    assertNull(drop.type());
    Node gi = node(g, "getitem_1");
    assertEquals("getitem", gi.target());
    assertEquals(List.of(new Arg.NodeRef("native_dropout"), new Arg.IntArg(1)), gi.args());
    assertEquals(TensorType.of("bool", 8, 16), gi.type());
    assertEquals(
        Arrays.asList(null, null, TensorType.of("float32", 8, 8)), node(g, "split").meta().types());
    assertEquals(List.of(new Arg.NodeRef("max_1"), new Arg.IntArg(0)), node(g, "getitem_3").args());
    assertEquals("getitem", node(g, "getitem_3").target());
  }

  @Test
  void stackTraceCommentsApplyUntilTheNextOne() {
    Graph g =
        importText(
            dir,
            module(
                "x: \"f32[4]\"",
                "# File: /src/model.py:12 in forward, code: h = self.fc1(x)",
                "a: \"f32[4]\" = torch.ops.aten.relu.default(x)",
                "b: \"f32[4]\" = torch.ops.aten.relu.default(a)",
                "",
                " # File: /src/model.py:13 in forward, code: return h, code: x",
                "c: \"f32[4]\" = torch.ops.aten.relu.default(b)",
                "# No stacktrace found for following nodes",
                "d: \"f32[4]\" = torch.ops.aten.relu.default(c)",
                "# an ordinary comment",
                "e: \"f32[4]\" = torch.ops.aten.relu.default(d)",
                "return (e,)"));
    String first = "File \"/src/model.py\", line 12, in forward\n    h = self.fc1(x)";
    assertNull(node(g, "x").meta().stackTrace());
    assertEquals(first, node(g, "a").meta().stackTrace());
    assertEquals(first, node(g, "b").meta().stackTrace());
    assertEquals(
        "File \"/src/model.py\", line 13, in forward\n    return h, code: x",
        node(g, "c").meta().stackTrace());
    assertNull(node(g, "d").meta().stackTrace());
    assertNull(node(g, "e").meta().stackTrace());
    assertNull(g.outputNode().meta().stackTrace());
  }

  @Test
  void getAttrConstantsTakeTheirValueAndType() {
    Graph g =
        importText(
            dir,
            module(
                "x: \"i64[4]\"",
                "_tensor_constant0 = self._tensor_constant0",
                "lift_fresh_copy: \"i64[]\" = torch.ops.aten.lift_fresh_copy.default(_tensor_constant0);"
                    + "  _tensor_constant0 = None",
                "_tensor_constant1: \"f32[]\" = self._tensor_constant1",
                "w: \"f32[3, 4]\" = self.weight",
                "return (lift_fresh_copy, _tensor_constant1, w)"),
            Map.of("_tensor_constant0", 0.0, "_tensor_constant1", 2.5));
    Node c0 = node(g, "_tensor_constant0");
    assertEquals(NodeOp.GET_ATTR, c0.op());
    assertEquals("_tensor_constant0", c0.target());
    assertEquals(TensorType.of("int64"), c0.type());
    assertEquals(0.0, c0.meta().value());
    assertEquals(TensorType.of("float32"), node(g, "_tensor_constant1").type());
    assertEquals(2.5, node(g, "_tensor_constant1").meta().value());
    Node w = node(g, "w");
    assertEquals("weight", w.target());
    assertNull(w.meta().value());
  }

  @Test
  void pytreeInputsAndOutputs() {
    String text =
        Snippets.PRELUDE
            + "    def forward(self, primals, tangents):\n"
            + "        primals_1: \"f32[4, 2]\"; primals_2: \"i64[4]\"; tangents_1: \"f32[1]\"; \n"
            + "    \n"
            + "        primals_1, primals_2, tangents_1, = fx_pytree.tree_flatten_spec([primals, tangents], self._in_spec)\n"
            + "        # No stacktrace found for following nodes\n"
            + "        clone: \"f32[4, 2]\" = torch.ops.aten.clone.default(primals_1);  primals_1 = None\n"
            + "        return pytree.tree_unflatten([clone, None, tangents_1], self._out_spec)\n";
    Graph g = importText(dir, text);
    assertEquals(
        List.of("primals_1", "primals_2", "tangents_1", "clone", "output"),
        g.nodes().stream().map(Node::name).toList());
    assertEquals(TensorType.of("int64", 4), node(g, "primals_2").type());
    assertEquals(TensorType.of("float32", 1), node(g, "tangents_1").type());
    assertEquals(
        List.of(new Arg.NodeRef("clone"), Arg.NONE, new Arg.NodeRef("tangents_1")), g.outputs());
  }

  @Test
  void returnForms() {
    assertEquals(
        List.of(new Arg.NodeRef("x")),
        importText(dir, module("x: \"f32[1]\"", "return x")).outputs());
    assertEquals(
        List.of(new Arg.NodeRef("x"), new Arg.NodeRef("y")),
        importText(dir, module("x: \"f32[1]\", y: \"f32[1]\"", "return [x, y]")).outputs());
    assertEquals(
        List.of(new Arg.NodeRef("x"), Arg.NONE),
        importText(dir, module("x: \"f32[1]\"", "return (x, None)")).outputs());
    assertEquals(List.of(), importText(dir, module("x: \"f32[1]\"", "return ()")).outputs());
  }

  @Test
  void outputNodeNameAvoidsATakenName() {
    Graph g = importText(dir, module("output: \"f32[1]\"", "return (output,)"));
    assertEquals("output_1", g.outputNode().name());
    assertEquals(List.of(new Arg.NodeRef("output")), g.outputs());
  }

  @Test
  void cleanUpsCommentsBlankLinesAndSemicolonsAreIgnored() {
    Graph g =
        importText(
            dir,
            module(
                "x: \"f32[2]\"",
                "a: \"f32[2]\" = torch.ops.aten.relu.default(x); b: \"f32[2]\" = torch.ops.aten.neg.default(a);  x = None",
                "",
                "# comment",
                "del a",
                "a = b = None",
                "c: \"f32[2]\" = torch.ops.aten.add.Tensor(\n            b, b)",
                "return (c,)"));
    assertEquals(
        List.of("x", "a", "b", "c", "output"), g.nodes().stream().map(Node::name).toList());
    assertEquals(List.of(new Arg.NodeRef("b"), new Arg.NodeRef("b")), node(g, "c").args());
  }

  @Test
  void moduleNamedLambdaAndCopyrightHeaderAreRead() {
    String text =
        "# Copyright (c) 2025\n#\n\nimport torch\nfrom torch import device\n\nb8: type\n"
            + "Sym: type\n\n\n# Graph[rank=0](fw, gid=0)\nclass <lambda>(torch.nn.Module):\n"
            + "    def forward(self, arg0_1: \"f32[]\"):\n        return (arg0_1,)\n        \n";
    Graph g = importText(dir, text);
    assertEquals(List.of("arg0_1", "output"), g.nodes().stream().map(Node::name).toList());
  }

  @Test
  void methodsModulesAndTorchFunctions() {
    Graph g =
        importText(
            dir,
            module(
                "x: \"f32[4, 4]\"",
                "view: \"f32[16]\" = x.view(16)",
                "fc: \"f32[4, 2]\" = self.fc1(x)",
                "sig: \"f32[4, 4]\" = torch.sigmoid(x)",
                "return (view, fc, sig)"));
    Node view = node(g, "view");
    assertEquals(NodeOp.CALL_METHOD, view.op());
    assertEquals("view", view.target());
    assertEquals(List.of(new Arg.NodeRef("x"), new Arg.IntArg(16)), view.args());
    assertEquals(NodeOp.CALL_MODULE, node(g, "fc").op());
    assertEquals("fc1", node(g, "fc").target());
    assertEquals("torch.sigmoid", node(g, "sig").target());
  }

  @Test
  void voidAssertionsGetAnEmptyTuple() {
    Graph g =
        importText(
            dir,
            module(
                "x: \"f32[4]\", s: \"Sym(u0)\"",
                "ge: \"Sym(u0 >= 0)\" = s >= 0",
                "_assert_scalar = torch.ops.aten._assert_scalar.default(ge, \"Runtime assertion failed\")",
                "return (x,)"));
    Node a = node(g, "_assert_scalar");
    assertTrue(a.meta().tuple());
    assertEquals(List.of(), a.meta().types());
  }

  @Test
  void tagOpsBecomeTaggedAliases() {
    Graph g =
        importText(
            dir,
            module(
                "x: \"i64[32, 8]\"",
                "log_tensor: \"i64[32, 8]\" = torch.ops.tg.log_tensor.default(x, 'tokens');  x = None",
                "inplace_log_tensor = torch.ops.tg.inplace_log_tensor.default(log_tensor, 'ids')",
                "neg: \"i64[32, 8]\" = torch.ops.aten.neg.default(log_tensor)",
                "return (neg,)"));
    Node tag = node(g, "log_tensor");
    assertEquals("aten.alias.default", tag.target());
    assertEquals(List.of(new Arg.NodeRef("x")), tag.args());
    assertEquals("tokens", tag.meta().tag());
    assertEquals(TensorType.of("int64", 32, 8), tag.type());
    Node inplace = node(g, "inplace_log_tensor");
    assertEquals("aten.alias.default", inplace.target());
    assertEquals("ids", inplace.meta().tag());
    assertEquals(TensorType.of("int64", 32, 8), inplace.type());
    assertEquals(List.of(new Arg.NodeRef("log_tensor")), node(g, "neg").args());
    assertEquals(tag, g.resolve("tokens"));
  }

  @Test
  void dynamoInputRenamesNameTheInputNode() {
    Graph g =
        importText(
            dir,
            module(
                "L_x_: \"f32[4]\"",
                "l_x_ = L_x_",
                "mul: \"f32[4]\" = l_x_ * 2;  l_x_ = None",
                "return (mul,)"));
    assertEquals(List.of("l_x_", "mul", "output"), g.nodes().stream().map(Node::name).toList());
    assertEquals("L_x_", node(g, "l_x_").target());
    assertEquals(NodeOp.PLACEHOLDER, node(g, "l_x_").op());
    assertEquals("mul", node(g, "mul").target());
    assertEquals(List.of(new Arg.NodeRef("l_x_"), new Arg.IntArg(2)), node(g, "mul").args());
    assertEquals(TensorType.of("float32", 4), node(g, "mul").type());
  }

  @Test
  void graphNameIsTheFileNameWithoutPy() {
    Path p = Snippets.write(dir, "gd.r1.py", module("x: \"f32[1]\"", "return (x,)"));
    Graph g = GraphCodeImporter.importGraph(p, ImportOptions.defaults());
    assertEquals("gd.r1", g.name());
    assertEquals(p.toString(), g.source());
  }
}
