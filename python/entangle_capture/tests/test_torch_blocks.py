"""Attention with heads split, a sequence-parallel LayerNorm + MLP block and a vocabulary-
parallel embedding, parallelized with torch 2 plans, captured and checked, with bug variants."""

import unittest

from checking import CaptureCase, has_module, run_main

X = "entangle_capture.examples."


def torch_args(module, world, build="build", plan="plan", placements=None, train=False):
    args = ["torch", f"{X}{module}:{build}", "--plan", f"{X}{module}:{plan}", "--world", str(world)] + (["--train"] if train else [])
    if placements:
        args += ["--inputs", f"{X}{module}:{placements}", "--outputs", f"{X}{module}:{placements}"]
    return args


@unittest.skipUnless(has_module("torch"), "torch 2 is not installed (.ci/run installs it into .venv)")
class TorchBlocksTest(CaptureCase):
    def test_attention_with_heads_split_refines_at_2_and_4_ranks(self):
        for world in (2, 4):
            with self.subTest(world=world):
                self.assert_verdict(torch_args("attention", world), "refines")

    def test_attention_forward_and_backward_refines_at_2_and_4_ranks(self):
        for world in (2, 4):
            with self.subTest(world=world):
                report = self.assert_verdict(torch_args("attention", world, train=True), "refines")
                self.assertEqual(len(report["output_relation"]), 5)

    def test_causal_sdpa_forward_and_backward_refines_at_2_and_4_ranks(self):
        # torch's CPU attention backward is lowered as the kernel computes it, head by head
        for world in (2, 4):
            with self.subTest(world=world):
                self.assert_verdict(torch_args("attention", world, build="build_sdpa", train=True), "refines")

    def test_sdpa_split_by_the_global_head_count_is_not_refined(self):
        # found where the heads are cut: the decomposed forward's scaled query, before any score
        report = self.assert_verdict(torch_args("attention", 2, build="build_sdpa_global_heads", train=True), "not-refined", "mul", "aten.mul.Scalar")
        self.assertIn("witness", report["failure"])

    def test_attention_split_by_the_global_head_count_is_not_refined_at_the_scores(self):
        self.assert_verdict(torch_args("attention", 2, build="build_global_heads"), "not-refined", "bmm", "aten.bmm.default")

    def test_sequence_parallel_block_refines_at_2_ranks(self):
        report = self.assert_verdict(torch_args("sp_block", 2, placements="sequence_sharded"), "refines")
        self.assertIn("dim=1", report["output_relation"][0]["gd"])

    def test_sequence_parallel_block_refines_at_4_ranks(self):
        # DTensor reduce-scatters along the sequence as split_with_sizes(dim 1) + cat(dim 0) +
        # reduce_scatter_tensor: the sum of the ranks' partial results, each the concat of its
        # sequence blocks, is the concat of the block-wise sums (sumn-of-concats, any rank count)
        report = self.assert_verdict(torch_args("sp_block", 4, placements="sequence_sharded"), "refines")
        self.assertIn("dim=1", report["output_relation"][0]["gd"])

    def test_sequence_parallel_block_forward_and_backward_refines_at_2_and_4_ranks(self):
        for world in (2, 4):
            with self.subTest(world=world):
                self.assert_verdict(torch_args("sp_block", world, placements="sequence_sharded", train=True), "refines")

    def test_a_gather_dtensor_reorders_through_a_sort_refines_forward_and_backward_at_2_and_4_ranks(self):
        # DTensor gathers the sequence shard viewed [batch * seq, hidden] and puts the rows back in
        # order by index_select with a sort of fixed positions, then views them with as_strided:
        # read as slices of the gathered rows
        for world in (2, 4):
            for train in (False, True):
                with self.subTest(world=world, train=train):
                    self.assert_verdict(torch_args("sp_block", world, plan="plan_implicit_gather", placements="sequence_sharded", train=train), "refines")

    def test_vocabulary_parallel_embedding_refines_at_2_and_4_ranks(self):
        for world in (2, 4):
            with self.subTest(world=world):
                self.assert_verdict(torch_args("vocab_embedding", world), "refines")

    def test_vocabulary_parallel_embedding_forward_and_backward_refines_at_2_and_4_ranks(self):
        for world in (2, 4):
            with self.subTest(world=world):
                report = self.assert_verdict(torch_args("vocab_embedding", world, train=True), "refines")
                shards = ", ".join(f"r{r}.clone_1" for r in range(world))
                self.assertEqual(report["output_relation"][1]["gd"], f"concat({shards}, dim=0)")

    def test_embedding_of_batch_sharded_ids_declared_replicated_is_not_refined_at_the_lookup(self):
        self.assert_verdict(torch_args("vocab_embedding", 2, placements="batch_sharded"), "not-refined", "embedding", "aten.embedding.default")

    def test_a_cross_entropy_under_loss_parallel_refines_at_2_and_4_ranks(self):
        # each rank's log-softmax over its classes, from the all-reduced max and sum
        for world in (2, 4):
            with self.subTest(world=world):
                self.assert_verdict(torch_args("loss_parallel", world), "refines")

    def test_a_table_tied_to_the_output_layer_refines_as_both_uses_hold_its_rows(self):
        # G_s names the tied parameter once (tok.weight); each rank holds it twice, untied
        report = self.assert_verdict(torch_args("vocab_embedding", 2, build="build_tied", plan="plan_tied"), "refines")
        self.assertTrue(report["output_relation"])

    def test_training_a_tied_table_is_refused_with_why(self):
        code, _, err = run_main(torch_args("vocab_embedding", 2, build="build_tied", plan="plan_tied", train=True), self.folder())
        self.assertEqual(code, 2, err)
        self.assertIn("ties head.weight and tok.weight", err)


if __name__ == "__main__":
    unittest.main()
