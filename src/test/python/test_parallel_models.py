"""The parallel example models on real data: each correct one reproduces its sequential twin, each
bug variant does not.

Every rank runs in its own thread; the functional collectives of ``fx_collectives`` are replaced
by real exchanges between the threads, so the models run as they would under ``torchrun``. The
inputs and weights of the ranks are cut from the sequential model's the way the examples' input
relations say, and the ranks' outputs are combined the way the checker's output relations say.
This is the ground truth of ``examples/``: the verdict each case expects, checked numerically and
independently of the checker.
"""

import threading
import unittest
from unittest import mock

import support
from support import needs_torch

if support.TORCH_MISSING is None:
    import torch
    from torch import nn

    import example_models as m
    import fx_collectives


class EmulatedGroup:
    """The collectives of one process group whose members are threads."""

    def __init__(self, world_size):
        self.world_size = world_size
        self.barrier = threading.Barrier(world_size, timeout=60)
        self.slots = [None] * world_size
        self.local = threading.local()

    @property
    def rank(self):
        return self.local.rank

    def exchange(self, value):
        """Every member's ``value``, in rank order."""
        self.slots[self.rank] = value
        self.barrier.wait()
        values = list(self.slots)
        self.barrier.wait()
        return values

    def all_reduce(self, x, reduce_op="sum", group="tp"):
        values = torch.stack(self.exchange(x))
        if reduce_op == "sum":
            return values.sum(0)
        if reduce_op == "avg":
            return values.sum(0) / self.world_size
        if reduce_op == "max":
            return values.amax(0)
        if reduce_op == "min":
            return values.amin(0)
        raise ValueError(reduce_op)

    def all_gather(self, x, group_size, group="tp"):
        assert group_size == self.world_size
        return torch.cat(self.exchange(x))

    def reduce_scatter(self, x, group_size, reduce_op="sum", group="tp"):
        return self.all_reduce(x, reduce_op).chunk(group_size)[self.rank].clone()

    def all_to_all(self, x, output_split_sizes, input_split_sizes, group="tp"):
        sent = self.exchange((x, list(input_split_sizes)))
        parts = [t.split(splits)[self.rank] for t, splits in sent]
        assert [p.shape[0] for p in parts] == list(output_split_sizes), "split sizes disagree"
        return torch.cat(parts)

    def broadcast(self, x, src, group="tp"):
        return self.exchange(x)[src]

    def run(self, fn):
        """``fn(rank)`` on every rank at once; the results in rank order."""
        results = [None] * self.world_size
        errors = []

        def body(rank):
            self.local.rank = rank
            try:
                results[rank] = fn(rank)
            except BaseException as e:  # noqa: BLE001 (reported below)
                errors.append(e)
                self.barrier.abort()

        names = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast")
        with mock.patch.multiple(fx_collectives, **{n: getattr(self, n) for n in names}):
            threads = [threading.Thread(target=body, args=(r,)) for r in range(self.world_size)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        if errors:
            raise errors[0]
        return results


def randomize(module, seed=0):
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn(p.shape, generator=gen))
    return module


def load_shards(parallel, sequential, rank, world_size, shards):
    """Copies into ``parallel`` rank ``rank``'s part of each of ``sequential``'s parameters:
    ``shards[name]`` is a dim (equal chunks along it), a function ``(full, rank) -> part``, or
    absent (the parameter is replicated)."""
    full = dict(sequential.named_parameters())
    with torch.no_grad():
        for name, p in parallel.named_parameters():
            how = shards.get(name)
            if how is None:
                part = full[name]
            elif callable(how):
                part = how(full[name], rank)
            else:
                part = full[name].chunk(world_size, dim=how)[rank]
            p.copy_(part)
    return parallel


def outputs(value):
    return list(value) if isinstance(value, (tuple, list)) else [value]


@needs_torch
class ParallelModelsTest(unittest.TestCase):

    def run_case(self, sequential, inputs, world_size, make_parallel, shards, rank_inputs, combine):
        """Runs both models; returns (expected outputs, combined outputs of the ranks)."""
        torch.manual_seed(1)
        randomize(sequential)
        with torch.no_grad():
            expected = outputs(sequential(*inputs))

        def rank_fn(rank):
            par = load_shards(make_parallel(rank), sequential, rank, world_size, shards)
            with torch.no_grad():
                return outputs(par(*rank_inputs(rank)))

        got = combine(EmulatedGroup(world_size).run(rank_fn))
        return expected, got

    def assert_matches(self, expected, got):
        self.assertEqual(len(expected), len(got))
        for e, g in zip(expected, got):
            self.assertEqual(e.shape, g.shape)
            self.assertTrue(torch.allclose(e, g, atol=1e-4, rtol=1e-4), f"max error {(e - g).abs().max()}")

    def assert_differs(self, expected, got):
        self.assertEqual(len(expected), len(got))
        self.assertTrue(any(e.shape != g.shape or not torch.allclose(e, g, atol=1e-3, rtol=1e-3)
                            for e, g in zip(expected, got)), "the bug variant computes the sequential result")

    def check(self, correct, *args, **kwargs):
        expected, got = self.run_case(*args, **kwargs)
        (self.assert_matches if correct else self.assert_differs)(expected, got)

    # -- a row-parallel projection viewed to 3-d before the all-reduce

    def test_row_parallel_3d(self):
        for n, bug in ((2, False), (3, False), (3, True)):
            x = torch.randn(2, 5, 6 * n)
            self.check(
                not bug, m.Projection3d(6 * n, 7), [x], n,
                lambda r: m.RowParallelProjection3d(6 * n, 7, r, n, bias_before_reduce=bug),
                {"proj.weight": 1}, lambda r: [x.chunk(n, dim=2)[r]], lambda outs: outs[0])

    # -- a replicated value averaged by a sum all-reduce

    def test_replicated_average(self):
        x = torch.randn(5, 6)
        for n, divisor in ((3, None), (2, None), (2, 1), (3, 2)):
            self.check(
                divisor is None, m.GatedScore(6, 4), [x], n,
                lambda r: m.ReplicatedGatedScore(6, 4, r, n, divisor), {}, lambda r: [x],
                lambda outs: outs[0])

    # -- the batch mean from micro-batch means

    def test_micro_batch_mean(self):
        for micro, divide in ((3, True), (2, True), (2, False)):
            x, target = torch.randn(12, 5), torch.randn(12, 3)
            seq = randomize(m.PerSampleLoss(5, 3))
            par = load_shards(m.MicroBatchPerSampleLoss(5, 3, micro, divide), seq, 0, 1, {})
            batches = []
            for xs, ts in zip(x.chunk(micro), target.chunk(micro)):
                batches += [xs, ts]
            with torch.no_grad():
                expected, got = list(seq(x, target)), list(par(*batches))
            (self.assert_matches if divide else self.assert_differs)(expected, got)

    # -- column-parallel weights stored transposed

    def test_transposed_shards(self):
        x = torch.randn(3, 8)
        for n, bug in ((2, False), (4, False), (2, True)):
            self.check(
                not bug, m.TransposedProduct(8, 12), [x], n,
                lambda r: m.TransposedColumnParallel(8, 12, r, n, gather_rows=bug),
                {"weight": lambda w, r: w.chunk(n, dim=0)[r].t()}, lambda r: [x], lambda outs: outs[0])

    # -- uneven shards padded for the all-gather

    def test_padded_gather(self):
        for sizes, bug in (([4, 3, 3], False), ([3, 2], False), ([4, 3, 3], True)):
            n = len(sizes)
            x = torch.randn(sum(sizes), 6)
            parts = x.split(sizes)
            self.check(
                not bug, m.GeluProjection(6, 3 * n), [x], n,
                lambda r: m.PaddedGatherColumnParallel(6, 3 * n, r, n, sizes, trim_end_only=bug),
                {"proj.weight": 0, "proj.bias": 0}, lambda r: [parts[r]],
                lambda outs: [torch.cat([o[0] for o in outs], dim=1)])

    # -- rotary tables sliced at the rank's sequence offset

    def test_rotary_sequence_shards(self):
        x, cos, sin = torch.randn(8, 2, 3, 4), torch.randn(16, 4), torch.randn(16, 4)
        for n, bug in ((2, False), (4, False), (2, True)):
            self.check(
                not bug, m.Rotary(), [x, cos, sin], n, lambda r: m.SequenceParallelRotary(r, n, offset_bug=bug),
                {}, lambda r: [x.chunk(n)[r], cos, sin], lambda outs: [torch.cat([o[0] for o in outs])])

    # -- a SwiGLU MLP over tensor parallelism

    def test_swiglu(self):
        x = torch.randn(2, 3, 8)
        for n, bug in ((2, False), (4, False), (2, True)):
            self.check(
                not bug, m.SwiGLU(8, 16), [x], n, lambda r: m.ParallelSwiGLU(8, 16, r, n, reduce_before_down=bug),
                {"gate.weight": 0, "up.weight": 0, "down.weight": 1}, lambda r: [x], lambda outs: outs[0])

    # -- RMSNorm under sequence parallelism in the [seq, batch, hidden] layout

    def test_sequence_parallel_rmsnorm(self):
        x = torch.randn(8, 2, 6)
        for n, bug in ((2, False), (4, False), (2, True)):
            self.check(
                not bug, m.RMSNormMLP(6, 8), [x], n,
                lambda r: m.SequenceParallelRMSNormMLP(6, 8, r, n, gather_batch_first=bug),
                {"fc1.weight": 0, "fc1.bias": 0, "fc2.weight": 1}, lambda r: [x.chunk(n)[r]],
                lambda outs: [torch.cat([o[0] for o in outs])])

    # -- grouped-query attention with key/value heads split over ranks

    def test_grouped_query_attention(self):
        x = torch.randn(5, 16)
        for n, layout, correct in ((2, "grouped", True), (4, "grouped", True), (2, "tiled", False)):
            self.check(
                correct, m.GroupedQueryAttention(16, 8, 4, 4, layout), [x], n,
                lambda r: m.ParallelGroupedQueryAttention(16, 8, 4, 4, r, n, layout),
                {"q_proj.weight": 0, "k_proj.weight": 0, "v_proj.weight": 0, "o_proj.weight": 1},
                lambda r: [x], lambda outs: outs[0])

    # -- forward and backward with tensor-parallel syncs

    def test_trainverify_column_parallel_linear(self):
        x, dy = torch.randn(3, 4), torch.randn(3, 6)
        for n, sync in ((2, True), (3, True), (2, False)):
            self.check(
                sync, m.LinearGrad(4, 6), [x, dy], n,
                lambda r: m.ColumnParallelLinearGrad(4, 6, r, n, sync_input_grad=sync), {"weight": 0},
                lambda r: [x, dy.chunk(n, dim=1)[r]],
                lambda outs: [torch.cat([o[0] for o in outs], 1), outs[0][1], torch.cat([o[2] for o in outs])])

    def test_slapo_schedule(self):
        x, dy = torch.randn(3, 4), torch.randn(3, 4)
        for n, syncs in ((2, ("backward", "forward")), (4, ("backward", "forward")), (2, ("forward",))):
            self.check(
                len(syncs) == 2, m.MLPGrad(4, 8), [x, dy], n, lambda r: m.SlapoScheduledMLP(4, 8, r, n, syncs),
                {"fc1.weight": 0, "fc1.bias": 0, "fc2.weight": 1}, lambda r: [x, dy],
                lambda outs: [outs[0][0], outs[0][1], torch.cat([o[2] for o in outs]), torch.cat([o[3] for o in outs]),
                              torch.cat([o[4] for o in outs], 1), outs[0][5]])

    # -- data parallelism and ZeRO

    def test_data_parallel_gradients(self):
        x, target = torch.randn(8, 5), torch.randn(8, 3)
        for n, op in ((2, "avg"), (4, "avg"), (2, "sum")):
            self.check(
                op == "avg", m.RegressionGrad(5, 3), [x, target], n,
                lambda r: m.DataParallelRegressionGrad(5, 3, r, n, op), {},
                lambda r: [x.chunk(n)[r], target.chunk(n)[r]], lambda outs: outs[0])

    def test_data_parallel_mlp_gradients(self):
        x, target = torch.randn(8, 4), torch.randn(8, 3)
        for n in (2, 4):
            self.check(
                True, m.MLPRegressionGrad(4, 6, 3), [x, target], n,
                lambda r: m.DataParallelMLPRegressionGrad(4, 6, 3, r, n), {},
                lambda r: [x.chunk(n)[r], target.chunk(n)[r]], lambda outs: outs[0])

    def test_zero_gradients(self):
        x, target = torch.randn(8, 5), torch.randn(8, 4)
        for n, reduce in ((2, True), (4, True), (2, False)):
            self.check(
                reduce, m.RegressionGrad(5, 4), [x, target], n,
                lambda r: m.ZeroRegressionGrad(5, 4, r, n, reduce), {"weight": 0, "bias": 0},
                lambda r: [x.chunk(n)[r], target.chunk(n)[r]],
                lambda outs: [outs[0][0], torch.cat([o[1] for o in outs]), torch.cat([o[2] for o in outs])])

    def test_flat_zero_gradients(self):
        x, target = torch.randn(8, 5), torch.randn(8, 4)
        for n in (2, 4):
            self.check(
                True, m.RegressionGrad(5, 4), [x, target], n,
                lambda r: m.FlatZeroRegressionGrad(5, 4, r, n),
                {"weight": lambda w, r: w.reshape(-1).chunk(n)[r], "bias": 0},
                lambda r: [x.chunk(n)[r], target.chunk(n)[r]],
                lambda outs: [outs[0][0], torch.cat([o[1] for o in outs]).view(4, 5),
                              torch.cat([o[2] for o in outs])])

    # -- expert parallelism

    def test_expert_parallel(self):
        counts = [[1, 2, 3], [3, 1, 2], [2, 3, 1]]
        x = torch.randn(18, 4)
        for transposed in (False, True):
            self.check(
                not transposed, m.StaticMoE(4, 6, counts), [x], 3,
                lambda r: m.ExpertParallelMoE(4, 6, counts, r, 3, transposed), {"w1": 0, "w2": 0},
                lambda r: [x.split([sum(row) for row in counts])[r]], lambda outs: [torch.cat([o[0] for o in outs])])

    # -- context parallelism

    def test_context_parallel_attention(self):
        q, k, v = torch.randn(2, 8, 4), torch.randn(2, 8, 4), torch.randn(2, 8, 4)
        for n, bug, shifted in ((2, False, False), (4, False, True), (2, True, False), (2, True, True)):
            self.check(
                not bug, m.CausalAttentionCore(), [q, k, v], n,
                lambda r: m.ContextParallelAttention(r, n, bug, shifted), {},
                lambda r: [q.chunk(n, 1)[r], k.chunk(n, 1)[r], v.chunk(n, 1)[r]],
                lambda outs: [torch.cat([o[0] for o in outs], 1)])


if __name__ == "__main__":
    unittest.main()
