"""export_fx: traced graphs written in the contract's JSON (docs/formats.md, Graph files and Distributed graph files)."""

import io
import json
import os
import tempfile
import unittest
from contextlib import redirect_stderr

import support
from support import needs_torch

if support.TORCH_MISSING is None:
    import torch
    import torch.nn.functional as F
    from torch import nn
    from torch.fx.experimental.proxy_tensor import make_fx

    import example_models
    import export_fx
    import fx_collectives as dist
    import fx_trace


def nodes_by_name(graph):
    return {n["name"]: n for n in graph["nodes"]}


def calls(graph, target):
    return [n for n in graph["nodes"] if n.get("target") == target]


@needs_torch
class EncodingTest(unittest.TestCase):
    """Arguments and metadata of a graph exercising every encoding of the contract."""

    @classmethod
    def setUpClass(cls):
        def f(x, ids):
            a = x * 2
            b = x * 2.5
            c = x.masked_fill(x > 0, float("-inf")).clamp(max=float("inf"))
            d = x.masked_fill(x < 0, float("nan"))
            e = x.to(torch.float16).clone(memory_format=torch.contiguous_format)
            z = torch.zeros(2, 3, layout=torch.strided, device="cpu")
            s = x[:, 1:]
            m = torch.max(x, 1)
            n = F.layer_norm(x, [8])
            k = ids.to(torch.bool)
            return a, b, c, d, e, z, s, m[0], m[1], n, k, x * torch.tensor(3.0)

        cls.modes = {}
        for mode in ("real", "fake"):
            gm = make_fx(f, tracing_mode=mode)(torch.randn(4, 8), torch.zeros(4, dtype=torch.int64))
            text = export_fx.to_text(export_fx.graph_to_json(gm, name="enc"))
            cls.modes[mode] = json.loads(text)

    def each(self):
        for mode, graph in self.modes.items():
            with self.subTest(mode):
                yield graph

    def test_graph_follows_the_contract(self):
        for g in self.each():
            support.check_graph(g)
            self.assertEqual(g["name"], "enc")

    def test_integers_and_floats_stay_apart(self):
        for g in self.each():
            muls = calls(g, "aten.mul.Tensor")
            self.assertIs(type(muls[0]["args"][1]), int)
            self.assertEqual(muls[0]["args"][1], 2)
            self.assertIs(type(muls[1]["args"][1]), float)
            self.assertEqual(muls[1]["args"][1], 2.5)

    def test_special_floats(self):
        for g in self.each():
            fills = calls(g, "aten.masked_fill.Scalar")
            self.assertEqual(fills[0]["args"][2], {"float": "-inf"})
            self.assertEqual(fills[1]["args"][2], {"float": "nan"})
            clamp = calls(g, "aten.clamp.default")[0]
            self.assertEqual(clamp["args"][2:] or [clamp["kwargs"].get("max")], [{"float": "inf"}])

    def test_dtype_device_layout_memory_format(self):
        for g in self.each():
            to = calls(g, "aten._to_copy.default")
            self.assertEqual(to[0]["kwargs"], {"dtype": {"dtype": "float16"}})
            self.assertEqual(to[1]["kwargs"], {"dtype": {"dtype": "bool"}})
            clone = calls(g, "aten.clone.default")[0]
            self.assertEqual(clone["kwargs"],
                             {"memory_format": {"memory_format": "contiguous_format"}})
            zeros = calls(g, "aten.zeros.default")[0]
            self.assertEqual(zeros["kwargs"]["layout"], {"layout": "strided"})
            self.assertEqual(zeros["kwargs"]["device"], {"device": "cpu"})
            self.assertIs(zeros["kwargs"]["pin_memory"], False)
            self.assertEqual(zeros["args"], [[2, 3]])

    def test_64_bit_slice_end(self):
        for g in self.each():
            ends = [n["args"][3] for n in calls(g, "aten.slice.Tensor")]
            self.assertIn(9223372036854775807, ends)

    def test_tuple_results_and_getitem(self):
        for g in self.each():
            nodes = nodes_by_name(g)
            mx = calls(g, "aten.max.dim")[0]
            self.assertEqual(mx["meta"]["tuple"], [{"shape": [4], "dtype": "float32"},
                                                   {"shape": [4], "dtype": "int64"}])
            ln = calls(g, "aten.native_layer_norm.default")[0]
            self.assertEqual([t["shape"] for t in ln["meta"]["tuple"]], [[4, 8], [4, 1], [4, 1]])
            items = [n for n in g["nodes"] if n["target"] == "getitem"]
            self.assertTrue(items)
            for item in items:
                source = nodes[item["args"][0]["node"]]
                self.assertEqual(item["meta"]["shape"],
                                 source["meta"]["tuple"][item["args"][1]]["shape"])

    def test_zero_d_constant_has_its_value(self):
        for g in self.each():
            constants = [n for n in g["nodes"] if n["op"] == "get_attr"]
            self.assertEqual(len(constants), 1)
            self.assertEqual(constants[0]["meta"], {"shape": [], "dtype": "float32", "value": 3.0})

    def test_outputs_in_order(self):
        for g in self.each():
            outs = g["nodes"][-1]["args"][0]
            self.assertEqual(len(outs), 12)
            self.assertTrue(all(set(o) == {"node"} for o in outs))


@needs_torch
class TargetsAndSymbolsTest(unittest.TestCase):

    def test_symbolic_sizes(self):
        def f(x):
            return x.view(x.shape[0] * 2, -1) + 1.0

        gm = make_fx(f, tracing_mode="symbolic")(torch.randn(4, 8))
        g = export_fx.graph_to_json(gm)
        support.check_graph(g)
        nodes = nodes_by_name(g)
        x = next(n for n in g["nodes"] if n["op"] == "placeholder")
        self.assertTrue(all(set(s) == {"sym"} for s in x["meta"]["shape"]), x["meta"])
        mul = next(n for n in g["nodes"] if n["target"] == "operator.mul")
        self.assertEqual(mul["meta"], {"shape": [], "dtype": "int64"})
        view = calls(g, "aten.view.default")[0]
        self.assertEqual(view["args"][1], [{"node": mul["name"]}, -1])
        self.assertIn(nodes[mul["args"][0]["node"]]["target"], ("aten.sym_size", "aten.sym_size.int"))

    def test_encode_arg_sym_and_unsupported_values(self):
        self.assertEqual(export_fx.encode_arg([1, 2.0, None, True, "s"]), [1, 2.0, None, True, "s"])
        with self.assertRaisesRegex(export_fx.ExportError, r"node 'x' args\[1\]: a value of type slice"):
            export_fx.encode_arg(slice(1, 2), "node 'x' args[1]")
        with self.assertRaisesRegex(export_fx.ExportError, "does not fit in 64 bits"):
            export_fx.encode_arg(2 ** 63)
        with self.assertRaisesRegex(export_fx.ExportError, "tensors must be graph inputs"):
            export_fx.encode_arg(torch.zeros(2))

    def test_node_without_type_is_an_error_not_a_skip(self):
        graph = torch.fx.symbolic_trace(lambda x: torch.relu(x))
        with self.assertRaisesRegex(export_fx.ExportError,
                                    r"node 'x' \(placeholder x\) has no recorded result type"):
            export_fx.graph_to_json(graph)
        for node in graph.graph.nodes:
            if node.op == "placeholder":
                node.meta["val"] = torch.zeros(2)
        with self.assertRaisesRegex(export_fx.ExportError,
                                    r"node 'relu' \(call_function torch.relu\) has no recorded"):
            export_fx.graph_to_json(graph)

    def test_type_from_tensor_meta_alone(self):
        gm = torch.fx.symbolic_trace(lambda x: torch.relu(x) + 1)
        from torch.fx.passes.shape_prop import ShapeProp
        ShapeProp(gm).propagate(torch.zeros(2, 3))
        g = export_fx.graph_to_json(gm)
        support.check_graph(g)
        self.assertEqual([n["target"] for n in g["nodes"]],
                         ["x", "torch.relu", "operator.add", "output"])
        self.assertEqual(g["nodes"][2]["meta"], {"shape": [2, 3], "dtype": "float32"})


@needs_torch
class TracedModuleTest(unittest.TestCase):
    """trace_module + export: names, tags, stack traces and collectives of a real model."""

    @classmethod
    def setUpClass(cls):
        dist.ensure_registered()
        cls.model_file = os.path.join(support.SCRIPTS, "example_models.py")
        module = example_models.SequenceParallelNormMLP(16, 32, rank=1, world_size=2)
        gm = fx_trace.trace_module(module, {"x": torch.zeros(4, 16)},
                                   source_files=[cls.model_file], source_root=support.ROOT)
        cls.graph = export_fx.graph_to_json(gm)

    def test_contract(self):
        support.check_graph(self.graph)

    def test_placeholders_named_and_tagged(self):
        phs = [n for n in self.graph["nodes"] if n["op"] == "placeholder"]
        self.assertEqual([(n["name"], n["meta"].get("tag")) for n in phs], [
            ("norm_weight", "norm.weight"), ("norm_bias", "norm.bias"),
            ("fc1_weight", "fc1.weight"), ("fc1_bias", "fc1.bias"),
            ("fc2_weight", "fc2.weight"), ("fc2_bias", "fc2.bias"), ("x", None)])
        self.assertEqual(phs[2]["meta"]["shape"], [16, 16])
        self.assertNotIn("stack_trace", phs[0]["meta"])

    def test_collectives(self):
        targets = [n["target"] for n in self.graph["nodes"] if "c10d" in n["target"]]
        self.assertEqual(targets, ["_c10d_functional.all_gather_into_tensor.default",
                                   "_c10d_functional.wait_tensor.default",
                                   "_c10d_functional.reduce_scatter_tensor.default",
                                   "_c10d_functional.wait_tensor.default"])

    def test_stack_traces_point_into_the_model(self):
        gelu = calls(self.graph, "aten.gelu.default")[0]
        with open(self.model_file, encoding="utf-8") as f:
            lines = f.read().splitlines()
        first = gelu["meta"]["stack_trace"].splitlines()[0]
        self.assertRegex(first, r'^File "scripts/example_models.py", line \d+, in forward$')
        line = int(first.split("line ")[1].split(",")[0])
        self.assertIn("F.gelu", lines[line - 1])

    def test_tag_from_node_meta(self):
        gm = make_fx(lambda x: x + 1)(torch.zeros(2))
        add = next(n for n in gm.graph.nodes if n.op == "call_function")
        add.meta["tag"] = "loss"
        g = export_fx.graph_to_json(gm)
        self.assertEqual(nodes_by_name(g)["add"]["meta"]["tag"], "loss")

    def test_deterministic(self):
        module = example_models.SequenceParallelNormMLP(16, 32, rank=1, world_size=2)
        gm = fx_trace.trace_module(module, {"x": torch.zeros(4, 16)},
                                   source_files=[self.model_file], source_root=support.ROOT)
        self.assertEqual(export_fx.graph_to_json(gm), self.graph)

    def test_clashing_input_name_is_refused(self):
        with self.assertRaisesRegex(ValueError, "clash with node names"):
            fx_trace.trace_module(example_models.Block(4), {"gelu": torch.zeros(2, 4)})


@needs_torch
class FilesTest(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        dist.ensure_registered()
        self.ranks = [make_fx(lambda x: dist.all_reduce(x * 2, "sum", "tp"))(torch.zeros(3))
                      for _ in range(2)]

    def path(self, name):
        return os.path.join(self.tmp.name, name)

    def test_export_graph_writes_a_graph_file(self):
        written = export_fx.export_graph(self.ranks[0], self.path("sub/r0.json"))
        g = support.load(self.path("sub/r0.json"))
        self.assertEqual(g, written)
        self.assertEqual(g["name"], "r0")
        support.check_graph(g)

    def test_export_ranks_writes_a_distributed_file(self):
        export_fx.export_ranks(self.ranks, self.path("gd.json"), {"tp": [0, 1]})
        gd = support.load(self.path("gd.json"))
        support.check_distributed(gd)
        self.assertEqual((gd["world_size"], gd["process_groups"]), (2, {"tp": [0, 1]}))
        self.assertNotIn("format", gd["ranks"][0])

    def test_bad_process_group(self):
        with self.assertRaisesRegex(export_fx.ExportError, "process group 'tp' lists ranks"):
            export_fx.export_ranks(self.ranks, self.path("gd.json"), {"tp": [0, 2]})

    def test_merge_command(self):
        for k, gm in enumerate(self.ranks):
            export_fx.export_graph(gm, self.path(f"m.r{k}.json"))
        with open(self.path("process_groups.r0.json"), "w") as f:
            json.dump({"7": [0, 1]}, f)
        code = export_fx.main(["merge", self.path("m.r0.json"), self.path("m.r1.json"),
                               "--groups-from", self.tmp.name, "--group", "tp=0,1",
                               "-o", self.path("gd.json")])
        self.assertEqual(code, 0)
        gd = support.load(self.path("gd.json"))
        support.check_distributed(gd)
        self.assertEqual(gd["process_groups"], {"7": [0, 1], "tp": [0, 1]})
        self.assertEqual([r["name"] for r in gd["ranks"]], ["m.r0", "m.r1"])

    def test_merge_reports_bad_input(self):
        with open(self.path("bad.json"), "w") as f:
            f.write("{")
        err = io.StringIO()
        with redirect_stderr(err):
            code = export_fx.main(["merge", self.path("bad.json"), "-o", self.path("gd.json")])
        self.assertEqual(code, 2)
        self.assertIn("bad.json: not JSON (line 1", err.getvalue())
        self.assertFalse(os.path.exists(self.path("gd.json")))


@needs_torch
class ModelsMatchTheirSequentialTwinsTest(unittest.TestCase):
    """The parallel example models, run rank by rank on real data, reproduce the sequential ones.

    This checks the examples' ground truth (which cases refine) numerically,
    independently of the checker: the collectives are emulated over the ranks.
    """

    def test_tp_mlp_all_reduce(self):
        torch.manual_seed(0)
        seq = example_models.MLP(16, 32)
        for p in seq.parameters():
            nn.init.normal_(p)
        x = torch.randn(4, 16)
        partial = []
        for rank in range(2):
            par = example_models.ParallelMLP(16, 32, rank, 2, reduce=None)
            rows = slice(16 * rank, 16 * rank + 16)
            with torch.no_grad():
                par.fc1.weight.copy_(seq.fc1.weight[rows])
                par.fc1.bias.copy_(seq.fc1.bias[rows])
                par.fc2.weight.copy_(seq.fc2.weight[:, rows])
                par.fc2.bias.zero_()
                partial.append(par(x))
        with torch.no_grad():
            self.assertTrue(torch.allclose(partial[0] + partial[1] + seq.fc2.bias, seq(x),
                                           atol=1e-5))

    def test_vocab_parallel_embedding(self):
        torch.manual_seed(0)
        seq = example_models.Embedding(16, 8)
        nn.init.normal_(seq.weight)
        ids = torch.randint(0, 16, (2, 4))
        total = 0
        for rank in range(2):
            par = example_models.VocabParallelEmbedding(16, 8, rank, 2)
            with torch.no_grad():
                par.weight.copy_(seq.weight[8 * rank: 8 * rank + 8])
                total = total + par(ids)  # the all-reduce's sum, emulated
        with torch.no_grad():
            self.assertTrue(torch.equal(total, seq(ids)))


if __name__ == "__main__":
    unittest.main()
