"""A Megatron-style MLP parallelized with a torch 2 plan, captured and checked."""

import unittest

from checking import CaptureCase, has_module

M = "entangle_capture.examples.mlp"


@unittest.skipUnless(has_module("torch"), "torch 2 is not installed (.ci/run installs it into .venv)")
class TorchMlpTest(CaptureCase):
    def torch_args(self, world, plan="plan", build="build", *more):
        return ["torch", f"{M}:{build}", "--plan", f"{M}:{plan}", "--world", str(world), *more]

    def test_column_then_row_parallel_refines_at_2_and_4_ranks(self):
        for world in (2, 4):
            with self.subTest(world=world):
                report = self.assert_verdict(self.torch_args(world), "refines")
                self.assertEqual(len(report["output_relation"]), 1)

    def test_forward_and_backward_refines_at_2_and_4_ranks(self):
        for world in (2, 4):
            with self.subTest(world=world):
                report = self.assert_verdict(self.torch_args(world, "plan", "build", "--train"), "refines")
                # the output and the gradients of fc1.weight, fc1.bias and fc2.weight
                self.assertEqual(len(report["output_relation"]), 4)
                self.assertEqual(sorted(e["gd"].count("concat(") for e in report["output_relation"]), [0, 1, 1, 1])

    def test_a_dtensor_norm_over_the_sharded_hidden_dim_refines_forward_and_backward(self):
        # each rank's norm squared is its sum of squares; their all-reduced sum is the whole's
        report = self.assert_verdict(self.torch_args(2, "plan_hidden_dtensor", "build_hidden_norm", "--train"), "refines")
        self.assertEqual(len(report["output_relation"]), 4)  # the output, three gradients

    def test_a_plan_that_never_reduces_the_partial_sums_violates_the_replicated_output(self):
        report = self.assert_verdict(self.torch_args(2, "plan_missing_reduction"), "expectation-violated", "mm", "aten.mm.default")
        self.assertIn("sum(", report["output_relation"][0]["gd"])

    def test_a_batch_sharded_input_declared_replicated_is_not_refined_at_fc1(self):
        self.assert_verdict(self.torch_args(4, "plan", "build", "--inputs", f"{M}:batch_sharded", "--outputs", f"{M}:batch_sharded"), "not-refined", "addmm", "aten.addmm.default")

    def test_row_parallel_bias_refines(self):
        # DTensor adds bias / world_size on every rank before the all-reduce (the linear forms
        # decide that the N shares sum to the bias). The one torch capture run as a process
        # (python -m entangle_capture torch, its ranks forked from its own fork server).
        self.assert_verdict(self.torch_args(2, "plan", "build_with_bias"), "refines", as_process=True)


if __name__ == "__main__":
    unittest.main()
