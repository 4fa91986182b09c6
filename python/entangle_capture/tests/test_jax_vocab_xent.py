"""A JAX vocabulary-parallel cross-entropy written per device: the log-sum-exp that no device
computes starts a chain of operators (JAX writes a reshape and a broadcast around each reduction)
that only the loss maps."""

import unittest

from checking import CaptureCase, has_module

M = "entangle_capture.examples.jax_vocab_xent"


@unittest.skipUnless(has_module("jax"), "jax is not installed (.ci/run installs it into .venv)")
class JaxVocabXentTest(CaptureCase):
    def test_the_loss_is_taken_on_numbers_not_reported_as_a_bug(self):
        # jax.nn.logsumexp's guards fold (finite logits, a sum of exponentials); the one-hot pick
        # of the target is still taken on numbers: unproved (a gap), the loss equal on every draw
        for world in (2, 4):
            with self.subTest(world=world):
                report = self.assert_verdict(["jax", f"{M}:build_manual", "--world", str(world)], "unproved")
                self.assertEqual(["div.1"], [a["gs"] for a in report["assumed"]], report)

    def test_a_target_pick_partitioned_by_xla_refines_on_2_and_4_devices(self):
        # take_along_axis over the sharded classes: each device's clamped, masked pick
        for world in (2, 4):
            with self.subTest(world=world):
                self.assert_verdict(["jax", f"{M}:build_take", "--world", str(world)], "refines")

    def test_a_local_max_and_a_missing_offset_are_bugs(self):
        for build in ("build_manual_local_max", "build_manual_no_offset"):
            with self.subTest(build=build):
                self.assert_verdict(["jax", f"{M}:{build}", "--world", "2"], "not-refined")


if __name__ == "__main__":
    unittest.main()
