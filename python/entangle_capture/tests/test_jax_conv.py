"""A JAX convolution sharded over CPU devices: data parallel training and channel parallel
inference partitioned by XLA, and a per-device training step that forgets to average."""

import unittest

from checking import CaptureCase, has_module

M = "entangle_capture.examples.jax_conv"


@unittest.skipUnless(has_module("jax"), "jax is not installed (.ci/run installs it into .venv)")
class JaxConvTest(CaptureCase):
    def test_data_parallel_training_step_refines_on_2_and_4_devices(self):
        for world in (2, 4):
            with self.subTest(world=world):
                self.assert_verdict(["jax", f"{M}:build", "--world", str(world)], "refines")

    def test_filters_sharded_by_output_channel_refine(self):
        for world in (2, 4):
            with self.subTest(world=world):
                self.assert_verdict(["jax", f"{M}:build_channels", "--world", str(world)], "refines")

    def test_a_step_left_unaveraged_is_caught_at_its_loss(self):
        # each device's loss is the mean over its own samples: the first value that differs
        self.assert_verdict(["jax", f"{M}:build_manual_missing_pmean", "--world", "2"], "not-refined", target="xla.divide")


if __name__ == "__main__":
    unittest.main()
