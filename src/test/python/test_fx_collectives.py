"""The functional collectives registered for tracing without a process group."""

import unittest

import support
from support import needs_torch

if support.TORCH_MISSING is None:
    import torch
    from torch.fx.experimental.proxy_tensor import make_fx

    import export_fx
    import fx_collectives as dist


@needs_torch
class FunctionalCollectivesTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        dist.ensure_registered()

    def test_registration_is_idempotent_and_complete(self):
        self.assertFalse(dist.ensure_registered())
        self.assertEqual(dist.missing_ops(), [])

    def test_result_shapes_on_cpu_and_meta(self):
        for device in ("cpu", "meta"):
            with self.subTest(device):
                x = torch.zeros(4, 6, device=device)
                self.assertEqual(dist.all_reduce(x, "avg").shape, (4, 6))
                self.assertEqual(dist.all_gather(x, 2).shape, (8, 6))
                self.assertEqual(dist.reduce_scatter(x, 4).shape, (1, 6))
                self.assertEqual(dist.all_to_all(x, [1, 2], [2, 2]).shape, (3, 6))
                self.assertEqual(dist.all_to_all(x, [], []).shape, (4, 6))
                self.assertEqual(dist.broadcast(x, 1).shape, (4, 6))

    def test_bad_arguments_are_refused(self):
        x = torch.zeros(3, 2)
        with self.assertRaisesRegex(Exception, "not a multiple of group_size 2"):
            dist.reduce_scatter(x, 2)
        with self.assertRaisesRegex(Exception, "reduce_op 'mean' is not one of"):
            dist.all_reduce(x, "mean")
        with self.assertRaisesRegex(Exception, "do not add up"):
            dist.all_to_all(x, [3], [1, 1])

    def test_traced_targets_are_the_torch2_names(self):
        def rank_fn(x):
            y = dist.all_reduce(x, "sum", "tp")
            y = dist.reduce_scatter(dist.all_gather(y, 2, "tp"), 2, "max", "tp")
            z = dist.all_to_all(y, [2, 2], [2, 2], "tp")
            return dist.broadcast(z, 0, "tp")

        for mode in ("real", "fake"):
            with self.subTest(mode):
                gm = make_fx(rank_fn, tracing_mode=mode)(torch.zeros(4, 3))
                nodes = export_fx.graph_to_json(gm)["nodes"]
                targets = [n["target"] for n in nodes if n["op"] == "call_function"]
                ns = "_c10d_functional."
                wait = ns + "wait_tensor.default"
                self.assertEqual(targets, [
                    ns + "all_reduce.default", wait, ns + "all_gather_into_tensor.default", wait,
                    ns + "reduce_scatter_tensor.default", wait, ns + "all_to_all_single.default",
                    wait, ns + "broadcast.default", wait])
                by_target = {n["target"]: n for n in nodes}
                self.assertEqual(by_target[ns + "all_reduce.default"]["args"][1:], ["sum", "tp"])
                self.assertEqual(by_target[ns + "reduce_scatter_tensor.default"]["args"][1:],
                                 ["max", 2, "tp"])
                self.assertEqual(by_target[ns + "all_to_all_single.default"]["args"][1:],
                                 [[2, 2], [2, 2], "tp"])
                self.assertEqual(by_target[ns + "all_gather_into_tensor.default"]["meta"]["shape"],
                                 [8, 3])


if __name__ == "__main__":
    unittest.main()
