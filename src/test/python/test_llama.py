"""The Llama-style decoder generator: ``make_examples.py --llama-sizes TPxLAYERS [--sp]`` and the
model it traces (``example_models.Llama``).

The exported folders are well-formed, each rank holds its shard of every weight, the input
relation names every input of G_s and G_d, the rotary cos/sin tables are one replicated input that
every layer slices, and the collectives are those of tensor parallelism without and with sequence
parallelism. On numbers, the ranks (threads exchanging real tensors) compute the sequential loss;
the checker proves that they do.
"""

import contextlib
import inspect
import io
import os
import tempfile
import unittest

import support
from support import needs_torch
from test_roundtrip import CheckerAssertions, needs_launcher

if support.TORCH_MISSING is None:
    import torch

    import example_models as m
    import fx_collectives
    import make_examples
    from test_parallel_models import EmulatedGroup, load_shards, randomize

# (tp, layers, sequence parallel) of the folders the tests export
SIZES = [(2, 1, False), (4, 2, False), (2, 2, True), (8, 1, True)]
COLLECTIVE = "_c10d_functional."


def folder_name(tp, layers, sp):
    return f"llama-{'sp-' if sp else ''}tp{tp}-l{layers}"


def generator_sizes():
    """The model sizes ``make_examples.llama`` uses by default."""
    return {k: p.default for k, p in inspect.signature(make_examples.llama).parameters.items()
            if p.default is not inspect.Parameter.empty and k != "sequence_parallel"}


def run_main(*argv):
    """make_examples.main(argv) in this process: (exit status, stdout and stderr)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            status = make_examples.main(list(argv))
        except SystemExit as e:
            status = e.code
    return status, out.getvalue()


def calls(nodes, target):
    return [n for n in nodes.values() if n["op"] == "call_function" and n["target"] == target]


def readers(nodes, name):
    """The nodes taking node ``name`` as an argument."""
    return [n for n in nodes.values()
            if any(isinstance(a, dict) and a.get("node") == name for a in n.get("args", []))]


@needs_torch
class LlamaExportTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.out = cls.tmp.name
        for sp in (False, True):
            sizes = [f"{tp}x{layers}" for tp, layers, s in SIZES if s == sp]
            status, said = run_main("--llama-sizes", *sizes, *(["--sp"] if sp else []), "--out", cls.out)
            if status != 0:
                raise AssertionError(f"make_examples.py --llama-sizes {sizes} failed:\n{said}")
        cls.sizes = generator_sizes()
        cls.cases = {}
        for tp, layers, sp in SIZES:
            folder = os.path.join(cls.out, folder_name(tp, layers, sp))
            gs = support.check_graph(support.load(os.path.join(folder, "gs.json")), f"{folder}/gs.json")
            gd_json = support.load(os.path.join(folder, "gd.json"))
            ranks = support.check_distributed(gd_json, f"{folder}/gd.json")
            ri = support.load(os.path.join(folder, "ri.json"))
            cls.cases[tp, layers, sp] = (gs, gd_json, ranks, ri)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_one_folder_per_size_named_by_family_tp_and_layers(self):
        self.assertEqual(sorted(os.listdir(self.out)), sorted(folder_name(*s) for s in SIZES))
        for s in SIZES:
            folder = os.path.join(self.out, folder_name(*s))
            self.assertEqual(sorted(os.listdir(folder)), ["expected.json", "gd.json", "gs.json", "ri.json"])
            self.assertEqual(support.load(os.path.join(folder, "expected.json"))["verdict"], "refines")
            gd_json = self.cases[s][1]
            self.assertEqual(gd_json["world_size"], s[0])
            self.assertEqual(gd_json["process_groups"], {"tp": list(range(s[0]))})

    def test_bad_sizes_are_usage_errors(self):
        for argv in (["--llama-sizes", "8"], ["--llama-sizes", "0x2"], ["--llama-sizes", "2x1x1"],
                     ["--llama-sizes", "ax2"], ["--sp"], ["--llama-sizes", "2x1", "mlp-tp2"]):
            with self.subTest(argv):
                status, said = run_main(*argv, "--out", self.out)
                self.assertEqual(status, 2, said)
        self.assertIn("TPxLAYERS", run_main("--llama-sizes", "8", "--out", self.out)[1])

    def test_tp_2_4_and_8_divide_heads_kv_heads_sequence_vocabulary_and_mlp(self):
        z = self.sizes
        self.assertLess(z["kv_heads"], z["heads"], "grouped-query attention: fewer key/value heads")
        self.assertEqual(z["heads"] % z["kv_heads"], 0)
        self.assertLess(z["seq"], z["max_seq"], "the tables are longer than the sequence they are sliced to")
        for n in (2, 4, 8):
            for what in ("heads", "kv_heads", "seq", "vocab", "ffn"):
                self.assertEqual(z[what] % n, 0, f"TP={n} does not divide {what}={z[what]}")

    def test_each_rank_holds_its_shard_of_every_weight(self):
        z = self.sizes
        hidden, d = z["hidden"], z["head_dim"]
        for (tp, layers, sp), (gs, _, ranks, _) in self.cases.items():
            shapes = {"embed.weight": [z["vocab"] // tp, hidden], "lm_head": [z["vocab"] // tp, hidden],
                      "norm.weight": [hidden], "cos": [z["max_seq"], d], "sin": [z["max_seq"], d],
                      "ids": [z["seq"]], "labels": [z["seq"]]}
            for i in range(layers):
                p = f"layers.{i}."
                shapes.update({
                    p + "input_layernorm.weight": [hidden], p + "post_attention_layernorm.weight": [hidden],
                    p + "self_attn.q_proj.weight": [z["heads"] // tp * d, hidden],
                    p + "self_attn.k_proj.weight": [z["kv_heads"] // tp * d, hidden],
                    p + "self_attn.v_proj.weight": [z["kv_heads"] // tp * d, hidden],
                    p + "self_attn.o_proj.weight": [hidden, z["heads"] // tp * d],
                    p + "mlp.gate_proj.weight": [z["ffn"] // tp, hidden],
                    p + "mlp.up_proj.weight": [z["ffn"] // tp, hidden],
                    p + "mlp.down_proj.weight": [hidden, z["ffn"] // tp]})
            for k, nodes in enumerate(ranks):
                placeholders = [n for n in nodes.values() if n["op"] == "placeholder"]
                self.assertEqual(len(placeholders), len(shapes), f"rank {k} of {folder_name(tp, layers, sp)}")
                for name, shape in shapes.items():
                    with self.subTest(case=folder_name(tp, layers, sp), rank=k, tensor=name):
                        node = support.resolve(nodes, name)
                        self.assertIsNotNone(node)
                        self.assertEqual(node["op"], "placeholder")
                        self.assertEqual(node["meta"]["shape"], shape)
            self.assertEqual(support.resolve(gs, f"layers.{layers - 1}.self_attn.k_proj.weight")["meta"]["shape"],
                             [z["kv_heads"] * d, hidden])

    def test_the_relation_names_every_input_of_gs_and_gd(self):
        for (tp, layers, sp), (gs, _, ranks, ri) in self.cases.items():
            with self.subTest(folder_name(tp, layers, sp)):
                self.assertEqual(ri["format"], "entangle-relation/1")
                named = [e["gs"] for e in ri["relations"]]
                self.assertEqual(len(named), len(set(named)))
                for nodes in [gs] + ranks:
                    inputs = [n for n in nodes.values() if n["op"] == "placeholder"]
                    covered = [n for n in inputs if n["name"] in named or n["meta"].get("tag") in named]
                    self.assertEqual(len(covered), len(inputs))
                    self.assertEqual(len(inputs), len(named))

    def test_one_replicated_rotary_table_that_every_layer_slices(self):
        seq = self.sizes["seq"]
        for (tp, layers, sp), (gs, _, ranks, ri) in self.cases.items():
            for table in ("cos", "sin"):
                with self.subTest(case=folder_name(tp, layers, sp), table=table):
                    self.assertIn({"gs": table, "replicate": True}, ri["relations"])
                    for nodes in [gs] + ranks:
                        inputs = [n for n in nodes.values() if n["op"] == "placeholder"
                                  and n["meta"]["shape"] == [self.sizes["max_seq"], self.sizes["head_dim"]]]
                        self.assertEqual([n["name"] for n in inputs], ["cos", "sin"], "one table each")
                        slices = readers(nodes, table)
                        self.assertEqual(len(slices), layers, "every layer slices the one table")
                        for s in slices:
                            self.assertEqual(s["target"], "aten.slice.Tensor")
                            self.assertEqual(s["args"][1:], [0, 0, seq], "cos[:seq] of the whole sequence")

    def test_collectives_of_tensor_and_sequence_parallelism(self):
        seq, hidden = self.sizes["seq"], self.sizes["hidden"]
        for (tp, layers, sp), (gs, _, ranks, _) in self.cases.items():
            with self.subTest(folder_name(tp, layers, sp)):
                self.assertFalse([n for n in gs.values() if n["target"].startswith(COLLECTIVE)])
                for nodes in ranks:
                    count = {op: len(calls(nodes, f"{COLLECTIVE}{op}.default"))
                             for op in ("all_reduce", "all_gather_into_tensor", "reduce_scatter_tensor")}
                    # per layer two row-parallel blocks; the embedding; three in the cross-entropy
                    if sp:
                        self.assertEqual(count, {"all_reduce": 3, "all_gather_into_tensor": 2 * layers + 1,
                                                 "reduce_scatter_tensor": 2 * layers + 1})
                    else:
                        self.assertEqual(count, {"all_reduce": 2 * layers + 4, "all_gather_into_tensor": 0,
                                                 "reduce_scatter_tensor": 0})
                    # the RMSNorms square the rank's rows: a sequence shard under SP
                    for square in calls(nodes, "aten.pow.Tensor_Scalar"):
                        self.assertEqual(square["meta"]["shape"], [seq // tp if sp else seq, hidden])


@needs_torch
class LlamaNumbersTest(unittest.TestCase):
    """The ranks, run as threads that exchange real tensors, compute the sequential loss."""

    def test_the_ranks_compute_the_sequential_loss(self):
        z = generator_sizes()
        fx_collectives.ensure_registered()
        gen = torch.Generator().manual_seed(3)
        ids = torch.randint(0, z["vocab"], (z["seq"],), generator=gen)
        labels = torch.randint(0, z["vocab"], (z["seq"],), generator=gen)
        inv_freq = 1.0 / 10000 ** (torch.arange(0, z["head_dim"], 2).float() / z["head_dim"])
        angles = torch.outer(torch.arange(z["max_seq"]).float(), inv_freq)
        angles = torch.cat([angles, angles], dim=-1)
        cos, sin = angles.cos(), angles.sin()
        sizes = [z[k] for k in ("vocab", "hidden", "heads", "kv_heads", "head_dim", "ffn")]
        shards = {"embed.weight": 0, "lm_head": 0}
        layers = 2
        for i in range(layers):
            p = f"layers.{i}."
            shards.update({p + "self_attn.q_proj.weight": 0, p + "self_attn.k_proj.weight": 0,
                           p + "self_attn.v_proj.weight": 0, p + "self_attn.o_proj.weight": 1,
                           p + "mlp.gate_proj.weight": 0, p + "mlp.up_proj.weight": 0,
                           p + "mlp.down_proj.weight": 1})
        sequential = randomize(m.Llama(*sizes, layers), seed=5)
        with torch.no_grad():
            expected = sequential(ids, labels, cos, sin)
        self.assertTrue(torch.isfinite(expected))
        for n, sp in ((2, False), (4, True), (8, False), (8, True)):
            with self.subTest(tp=n, sequence_parallel=sp):
                def rank_fn(rank):
                    par = load_shards(m.Llama(*sizes, layers, rank, n, sp), sequential, rank, n, shards)
                    with torch.no_grad():
                        return par(ids, labels, cos, sin)

                for loss in EmulatedGroup(n).run(rank_fn):
                    self.assertTrue(torch.allclose(loss, expected, atol=1e-4, rtol=1e-4),
                                    f"{loss} vs {expected}")

        # the rotary tables matter: other tables give another loss
        with torch.no_grad():
            self.assertFalse(torch.allclose(sequential(ids, labels, sin, cos), expected, atol=1e-4, rtol=1e-4))


@needs_torch
@needs_launcher
class LlamaCheckTest(CheckerAssertions):
    """The checker proves the generated decoders."""

    def test_generated_decoders_refine(self):
        fx_collectives.ensure_registered()
        cases = [make_examples.llama(2, 1), make_examples.llama(2, 2, True)]
        # one key/value head per rank and three layers: the tables, learned to be tiled by their
        # halves in the first layers, meet the rank's single key head without a broadcast
        small = [make_examples.llama(2, 3, sp, heads=4, kv_heads=2) for sp in (False, True)]
        for c in small:
            c.name = "kv-one-per-rank-" + c.name
        with tempfile.TemporaryDirectory() as out:
            make_examples.write(cases + small, out)
            for c in cases + small:
                with self.subTest(c.name):
                    report = self.assert_verdict(os.path.join(out, c.name), "refines")
                    [loss] = report["output_relation"]
                    self.assertRegex(loss["gd"], r"^r\d+\.\w+$", "the loss is one rank's loss")


    def test_fewer_key_value_heads_than_ranks_are_replicated_and_refine(self):
        fx_collectives.ensure_registered()
        cases = [make_examples.llama(4, 2, sp, heads=8, kv_heads=2) for sp in (False, True)]
        with tempfile.TemporaryDirectory() as out:
            make_examples.write(cases, out)
            for c in cases:
                with self.subTest(c.name):
                    self.assertIn("-h8-kv2", c.name)
                    entries = [r for r in c.relations if r["gs"] == "layers.0.self_attn.k_proj.weight"]
                    self.assertEqual(
                        [r["gd"] for r in entries],
                        ["concat(r0.layers.0.self_attn.k_proj.weight, r2.layers.0.self_attn.k_proj.weight, dim=0)",
                         "concat(r1.layers.0.self_attn.k_proj.weight, r3.layers.0.self_attn.k_proj.weight, dim=0)"],
                        "each key/value head is held by two consecutive ranks")
                    self.assert_verdict(os.path.join(out, c.name), "refines")

    def test_tables_every_layer_reads_are_followed_near_each_operator(self):
        # nine layers: each rotary table has 36 users (four per layer), past GdModel.HOT_USERS, so
        # exploration looks at its users near the operator only (OperatorCheck.hotUsers)
        fx_collectives.ensure_registered()
        good = make_examples.llama(2, 9)
        bad = make_examples.llama(2, 9, bug_layer=8)
        residual_adds = [n.name for n in bad.gs.graph.nodes
                         if n.op == "call_function" and str(n.target) == "aten.add.Tensor"
                         and (n.meta.get("stack_trace") or "").strip().endswith(
                             "h = h + layer.mlp(self.gather(layer.post_attention_layernorm(h)))")]
        self.assertEqual(len(residual_adds), 9, "one residual add per layer's MLP")
        with tempfile.TemporaryDirectory() as out:
            make_examples.write([good, bad], out)
            self.assert_verdict(os.path.join(out, good.name), "refines")
            self.assert_verdict(os.path.join(out, bad.name), "not-refined", residual_adds[8])

    def test_a_layer_without_its_mlp_reduction_fails_at_that_layers_residual_add(self):
        fx_collectives.ensure_registered()
        for sp in (False, True):
            c = make_examples.llama(4, 3, sp, heads=8, kv_heads=2, bug_layer=1)
            residual_adds = [n.name for n in c.gs.graph.nodes
                             if n.op == "call_function" and str(n.target) == "aten.add.Tensor"
                             and (n.meta.get("stack_trace") or "").strip().endswith(
                                 "h = h + layer.mlp(self.gather(layer.post_attention_layernorm(h)))")]
            with self.subTest(c.name), tempfile.TemporaryDirectory() as out:
                self.assertTrue(c.name.endswith("-bug1"), c.name)
                self.assertEqual(len(residual_adds), 3, "one residual add per layer's MLP")
                make_examples.write([c], out)
                self.assert_verdict(os.path.join(out, c.name), "not-refined", residual_adds[1])

if __name__ == "__main__":
    unittest.main()
