"""A JAX data-parallel training step: partitioned by XLA, written per device with pmean, and a
per-device step that sums its gradients instead of averaging them."""

import unittest

from checking import CaptureCase, has_module

M = "entangle_capture.examples.jax_train"


@unittest.skipUnless(has_module("jax"), "jax is not installed (.ci/run installs it into .venv)")
class JaxTrainTest(CaptureCase):
    def test_partitioned_by_xla_refines_on_2_and_4_devices(self):
        for world in (2, 4):
            with self.subTest(world=world):
                self.assert_verdict(["jax", f"{M}:build", "--world", str(world)], "refines")

    def test_per_device_step_averaged_by_pmean_refines_on_2_and_4_devices(self):
        # autodiff writes tanh's derivative as g (1 - t) + g (1 - t) t: terms that cancel
        for world in (2, 4):
            with self.subTest(world=world):
                self.assert_verdict(["jax", f"{M}:build_manual_pmean", "--world", str(world)], "refines")

    def test_gradients_summed_instead_of_averaged_are_caught_at_the_weight_gradient(self):
        # the per-device gradient halves are a derived multiple of G_s's until the weight
        # gradient's product, where the sum shows
        self.assert_verdict(["jax", f"{M}:build_manual_psum", "--world", "2"], "not-refined", target="xla.dot")


if __name__ == "__main__":
    unittest.main()
