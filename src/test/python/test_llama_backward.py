"""The Llama-style decoder's training step: ``make_examples.py --llama-sizes TPxLAYERS --backward``
and the model it traces (``example_models.LlamaTrainingStep``).

On numbers, the ranks (threads exchanging real tensors, process groups included) compute the
sequential loss and every gradient: sharded weights their shard of it, replicated ones all of it,
also with fewer key/value heads than ranks. The exported graphs carry the backward collectives
and no in-place calls, and the checker proves the training steps it can (key/value heads at least
as many as ranks), finds a layer's missing MLP reduction at that layer, and holds unreduced
gradients of replicated weights against the expectations.
"""

import os
import tempfile
import unittest
from unittest import mock

import support
from support import needs_torch
from test_llama import COLLECTIVE, calls, generator_sizes, run_main
from test_roundtrip import CheckerAssertions, needs_launcher

if support.TORCH_MISSING is None:
    import torch

    import example_models as m
    import fx_collectives
    import make_examples
    from test_parallel_models import EmulatedGroup, load_shards, randomize

    class GroupedEmulatedGroup(EmulatedGroup):
        """The emulated collectives, with all-reduces over named subgroups of the ranks as well."""

        def __init__(self, world_size, groups):
            super().__init__(world_size)
            self.groups = groups

        def all_reduce(self, x, reduce_op="sum", group="tp"):
            if group == "tp":
                return super().all_reduce(x, reduce_op, group)
            assert reduce_op == "sum", reduce_op
            values = self.exchange(x)
            return sum(values[r] for r in self.groups[group])


def shard_functions(layers, n, kv_heads):
    """How each weight of the decoder splits over n ranks (see ``load_shards``)."""
    def kv(full, rank):
        if kv_heads >= n:
            return full.chunk(n, 0)[rank]
        return full.chunk(kv_heads, 0)[rank // (n // kv_heads)]

    shards = {"embed.weight": 0, "lm_head": 0}
    for i in range(layers):
        p = f"layers.{i}."
        shards.update({p + "self_attn.q_proj.weight": 0, p + "self_attn.k_proj.weight": kv,
                       p + "self_attn.v_proj.weight": kv, p + "self_attn.o_proj.weight": 1,
                       p + "mlp.gate_proj.weight": 0, p + "mlp.up_proj.weight": 0,
                       p + "mlp.down_proj.weight": 1})
    return shards


def part(how, full, rank, n):
    if how is None:
        return full
    return how(full, rank) if callable(how) else full.chunk(n, dim=how)[rank]


@needs_torch
class LlamaTrainingStepNumbersTest(unittest.TestCase):
    """The ranks, run as threads that exchange real tensors, compute the sequential loss and
    gradients."""

    def test_the_ranks_compute_the_sequential_loss_and_gradients(self):
        z = generator_sizes()
        fx_collectives.ensure_registered()
        gen = torch.Generator().manual_seed(3)
        ids = torch.randint(0, z["vocab"], (z["seq"],), generator=gen)
        labels = torch.randint(0, z["vocab"], (z["seq"],), generator=gen)
        cos = torch.randn(z["max_seq"], z["head_dim"], generator=gen)
        sin = torch.randn(z["max_seq"], z["head_dim"], generator=gen)
        layers = 2
        for heads, kv_heads, n, sp in ((16, 8, 2, False), (16, 8, 4, True), (8, 2, 4, False), (8, 2, 4, True)):
            sizes = [z["vocab"], z["hidden"], heads, kv_heads, z["head_dim"], z["ffn"]]
            sequential = randomize(m.LlamaTrainingStep(*sizes, layers), seed=5)
            names = [name for name, _ in sequential.named_parameters()]
            loss, *grads = sequential(ids, labels, cos, sin)
            self.assertTrue(torch.isfinite(loss))
            shards = shard_functions(layers, n, kv_heads)
            groups = {}
            if kv_heads < n:
                group = n // kv_heads
                groups = {f"kv{j}": range(j * group, (j + 1) * group) for j in range(kv_heads)}
            with self.subTest(heads=heads, kv_heads=kv_heads, tp=n, sequence_parallel=sp):
                def rank_fn(rank):
                    par = m.LlamaTrainingStep(*sizes, layers, rank, n, sp)
                    return load_shards(par, sequential, rank, n, shards)(ids, labels, cos, sin)

                for rank, (rank_loss, *rank_grads) in enumerate(GroupedEmulatedGroup(n, groups).run(rank_fn)):
                    self.assertTrue(torch.allclose(rank_loss, loss, atol=1e-4, rtol=1e-4), f"{rank_loss} vs {loss}")
                    for name, full, got in zip(names, grads, rank_grads):
                        want = part(shards.get(name), full, rank, n)
                        scale = max(1.0, want.abs().max().item())  # float32 sums of large terms
                        self.assertTrue(torch.allclose(got, want, atol=1e-4 * scale, rtol=1e-3),
                                        f"rank {rank}: the gradient of {name}: {(got - want).abs().max()}"
                                        f" of {want.abs().max()}")

    def test_without_the_gradient_syncs_replicated_weights_get_partial_gradients(self):
        z = generator_sizes()
        fx_collectives.ensure_registered()
        sizes = [z["vocab"], z["hidden"], 8, 2, z["head_dim"], z["ffn"]]
        ids = torch.arange(z["seq"]) % z["vocab"]
        cos, sin = torch.randn(2, z["max_seq"], z["head_dim"], generator=torch.Generator().manual_seed(1))
        sequential = randomize(m.LlamaTrainingStep(*sizes, 1), seed=5)
        names = [name for name, _ in sequential.named_parameters()]
        _, *grads = sequential(ids, ids, cos, sin)
        shards = shard_functions(1, 4, 2)
        groups = {"kv0": range(0, 2), "kv1": range(2, 4)}

        def rank_fn(rank):
            par = load_shards(m.LlamaTrainingStep(*sizes, 1, rank, 4, True), sequential, rank, 4, shards)
            return par(ids, ids, cos, sin)

        with mock.patch.object(m.LlamaTrainingStep, "sync_gradient", lambda self, name, grad: grad):
            _, *rank_grads = GroupedEmulatedGroup(4, groups).run(rank_fn)[0]
        wrong = [name for name, full, got in zip(names, grads, rank_grads)
                 if not torch.allclose(got, part(shards.get(name), full, 0, 4), atol=1e-3, rtol=1e-3)]
        self.assertEqual(wrong, ["layers.0.input_layernorm.weight", "layers.0.self_attn.k_proj.weight",
                                 "layers.0.self_attn.v_proj.weight", "layers.0.post_attention_layernorm.weight",
                                 "norm.weight"])


@needs_torch
class LlamaTrainingStepExportTest(unittest.TestCase):

    def test_backward_folders_carry_gradients_groups_and_backward_collectives(self):
        with tempfile.TemporaryDirectory() as out:
            for extra in ([], ["--sp"]):
                status, said = run_main("--llama-sizes", "4x1", "--backward", "--heads", "8", "--kv-heads", "2",
                                        *extra, "--out", out)
                self.assertEqual(status, 0, said)
            for sp in (False, True):
                name = f"llama-{'sp-' if sp else ''}tp4-l1-h8-kv2-bwd"
                folder = os.path.join(out, name)
                gs = support.check_graph(support.load(os.path.join(folder, "gs.json")))
                gd_json = support.load(os.path.join(folder, "gd.json"))
                ranks = support.check_distributed(gd_json, f"{folder}/gd.json")
                ri = support.load(os.path.join(folder, "ri.json"))
                with self.subTest(name):
                    self.assertEqual(gd_json["process_groups"],
                                     {"tp": [0, 1, 2, 3], "kv0": [0, 1], "kv1": [2, 3]})
                    tags = [gs[o]["meta"].get("tag") for o in support.outputs(gs)]
                    self.assertEqual(tags[0], "loss")
                    self.assertIn("layers.0.self_attn.k_proj.weight.grad", tags)
                    self.assertEqual(len(tags), 1 + 12, "the loss and the gradients of 12 weights")
                    for nodes in [gs] + ranks:
                        self.assertFalse([x for x in nodes.values() if x["op"] == "call_function"
                                          and x["target"].split(".")[1].endswith("_")], "no in-place calls")
                    for nodes in ranks:
                        reduces = calls(nodes, f"{COLLECTIVE}all_reduce.default")
                        kv = [x for x in reduces if x["args"][2] != "tp"]
                        self.assertEqual(len(kv), 2, "the k and v projections' gradients over their replicas")
                        gathers = calls(nodes, f"{COLLECTIVE}all_gather_into_tensor.default")
                        scatters = calls(nodes, f"{COLLECTIVE}reduce_scatter_tensor.default")
                        if sp:
                            # forward: a gather before each of the layer's 2 blocks and the logits, a
                            # reduce-scatter after each block and the embedding; backward: the converse
                            self.assertEqual(len(gathers), 2 * (2 + 1))
                            self.assertEqual(len(scatters), 2 * (2 + 1))
                        else:
                            self.assertFalse(gathers + scatters)
                    expected = [e for e in ri["expect"] if e["gs"] == "norm.weight.grad"]
                    self.assertEqual([e["gd"] for e in expected], [f"r{k}.norm.weight.grad" for k in range(4)])
                    kv_expect = [e["gd"] for e in ri["expect"] if e["gs"] == "layers.0.self_attn.v_proj.weight.grad"]
                    self.assertEqual(kv_expect, [
                        "concat(r0.layers.0.self_attn.v_proj.weight.grad, r2.layers.0.self_attn.v_proj.weight.grad, dim=0)",
                        "concat(r1.layers.0.self_attn.v_proj.weight.grad, r3.layers.0.self_attn.v_proj.weight.grad, dim=0)"])

    def test_backward_goes_with_llama_sizes(self):
        status, said = run_main("--backward")
        self.assertEqual(status, 2, said)
        self.assertIn("--backward", said)


@needs_torch
@needs_launcher
class LlamaTrainingStepCheckTest(CheckerAssertions):
    """The checker proves the generated training steps, and finds their bugs."""

    def test_training_steps_refine(self):
        fx_collectives.ensure_registered()
        cases = [make_examples.llama(2, 1, backward=True), make_examples.llama(2, 2, True, backward=True),
                 make_examples.llama(4, 2, True, backward=True)]
        with tempfile.TemporaryDirectory() as out:
            make_examples.write(cases, out)
            for c in cases:
                with self.subTest(c.name):
                    self.assertTrue(c.name.endswith("-bwd"), c.name)
                    report = self.assert_verdict(os.path.join(out, c.name), "refines")
                    layers = int(c.name.split("-l")[1].split("-")[0])
                    # the loss; the embedding, final norm and output layer; 9 weights a layer
                    self.assertEqual(len(report["output_relation"]), 1 + 3 + 9 * layers)

    def test_training_steps_with_fewer_key_value_heads_than_ranks_refine(self):
        """Each key/value head replicated on several ranks: its gradient is a concat over heads of
        sums over the replicas, which the checker moves out of the rotation's halves."""
        fx_collectives.ensure_registered()
        cases = [make_examples.llama(2, 1, heads=4, kv_heads=1, backward=True),
                 make_examples.llama(4, 1, heads=8, kv_heads=2, backward=True),
                 make_examples.llama(8, 1, True, heads=16, kv_heads=2, backward=True)]
        with tempfile.TemporaryDirectory() as out:
            make_examples.write(cases, out)
            for c in cases:
                with self.subTest(c.name):
                    self.assert_verdict(os.path.join(out, c.name), "refines")

    def test_with_replicated_key_value_heads_a_missing_mlp_reduction_is_found(self):
        fx_collectives.ensure_registered()
        c = make_examples.llama(4, 2, heads=8, kv_heads=2, bug_layer=1, backward=True)
        residual_adds = [x.name for x in c.gs.graph.nodes
                         if x.op == "call_function" and str(x.target) == "aten.add.Tensor"
                         and (x.meta.get("stack_trace") or "").strip().endswith(
                             "h = h + layer.mlp(self.gather(layer.post_attention_layernorm(h)))")]
        with tempfile.TemporaryDirectory() as out:
            make_examples.write([c], out)
            self.assert_verdict(os.path.join(out, c.name), "not-refined", residual_adds[1])

    def test_a_layer_without_its_mlp_reduction_fails_at_that_layers_residual_add(self):
        fx_collectives.ensure_registered()
        for sp in (False, True):
            c = make_examples.llama(4, 2, sp, bug_layer=1, backward=True)
            residual_adds = [x.name for x in c.gs.graph.nodes
                             if x.op == "call_function" and str(x.target) == "aten.add.Tensor"
                             and (x.meta.get("stack_trace") or "").strip().endswith(
                                 "h = h + layer.mlp(self.gather(layer.post_attention_layernorm(h)))")]
            with self.subTest(c.name), tempfile.TemporaryDirectory() as out:
                self.assertEqual(len(residual_adds), 2, "one residual add per layer's MLP")
                make_examples.write([c], out)
                self.assert_verdict(os.path.join(out, c.name), "not-refined", residual_adds[1])

    def test_unreduced_norm_gradients_under_sequence_parallelism_violate_the_expectations(self):
        fx_collectives.ensure_registered()
        with mock.patch.object(m.LlamaTrainingStep, "sync_gradient", lambda self, name, grad: grad):
            c = make_examples.llama(2, 1, True, backward=True)
        with tempfile.TemporaryDirectory() as out:
            make_examples.write([c], out)
            self.assert_verdict(os.path.join(out, c.name), "expectation-violated")


if __name__ == "__main__":
    unittest.main()
