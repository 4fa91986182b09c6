"""A JAX MLP sharded over CPU devices, partitioned by XLA or written per device with shard_map."""

import unittest

from checking import CaptureCase, has_module

M = "entangle_capture.examples.jax_mlp"


@unittest.skipUnless(has_module("jax"), "jax is not installed (.ci/run installs it into .venv)")
class JaxMlpTest(CaptureCase):
    def test_partitioned_by_xla_refines_on_2_4_and_8_devices(self):
        for world in (2, 4, 8):
            with self.subTest(world=world):
                report = self.assert_verdict(["jax", f"{M}:build", "--world", str(world)], "refines")
                self.assertEqual(report["output_relation"][0]["gs"], "dot_general.1")

    def test_shard_map_program_with_its_psum_refines(self):
        # the one JAX capture run as a process (python -m entangle_capture jax), as a user runs it
        self.assert_verdict(["jax", f"{M}:build_manual", "--world", "4"], "refines", as_process=True)

    def test_shard_map_program_without_its_psum_violates_the_replicated_output(self):
        report = self.assert_verdict(["jax", f"{M}:build_manual_missing_psum", "--world", "2"], "expectation-violated", "dot_general.0", "xla.dot")
        self.assertIn("sum(", report["output_relation"][0]["gd"])

    def test_row_first_shard_map_program_summing_before_the_gelu_refines_on_2_and_4_devices(self):
        for world in (2, 4):
            with self.subTest(world=world):
                self.assert_verdict(["jax", f"{M}:build_manual_row_first", "--world", str(world)], "refines")

    def test_row_first_shard_map_program_applying_the_gelu_before_its_psum_is_not_refined_at_the_gelu(self):
        # jax.nn.gelu's tanh form starts with x ** 3, the first operator that sees the partial sums
        report = self.assert_verdict(["jax", f"{M}:build_manual_gelu_before_psum", "--world", "2"], "not-refined", "integer_pow.0", "xla.multiply")
        self.assertIn("witness", report["failure"])


if __name__ == "__main__":
    unittest.main()
