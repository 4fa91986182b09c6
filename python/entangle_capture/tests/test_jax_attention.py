"""A JAX attention block with its heads sharded over CPU devices."""

import unittest

from checking import CaptureCase, has_module

M = "entangle_capture.examples.jax_attention"


@unittest.skipUnless(has_module("jax"), "jax is not installed (.ci/run installs it into .venv)")
class JaxAttentionTest(CaptureCase):
    def test_partitioned_by_xla_refines_on_2_4_and_8_devices(self):
        for world in (2, 4, 8):
            with self.subTest(world=world):
                self.assert_verdict(["jax", f"{M}:build", "--world", str(world)], "refines")

    def test_shard_map_program_refines(self):
        self.assert_verdict(["jax", f"{M}:build_manual", "--world", "4"], "refines")

    def test_shard_map_program_reshaping_by_the_global_head_count_is_not_refined_at_the_scores(self):
        report = self.assert_verdict(["jax", f"{M}:build_manual_global_heads", "--world", "4"], "not-refined", "dot_general.1", "xla.dot")
        self.assertIn("jax_attention.py", report["failure"]["stack_trace"])


if __name__ == "__main__":
    unittest.main()
