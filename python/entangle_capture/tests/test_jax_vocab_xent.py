"""A JAX vocabulary-parallel cross-entropy written per device: the log-sum-exp that no device
computes starts a chain of operators (JAX writes a reshape and a broadcast around each reduction)
that only the loss maps; the target logit is picked by a one-hot or with take_along_axis."""

import unittest

from checking import CaptureCase, capture, check, has_module, state_range

M = "entangle_capture.examples.jax_vocab_xent"


@unittest.skipUnless(has_module("jax"), "jax is not installed (.ci/run installs it into .venv)")
class JaxVocabXentTest(CaptureCase):
    def test_the_loss_with_a_one_hot_target_refines_on_2_and_4_devices(self):
        # jax.nn.logsumexp's guards fold (finite logits, a sum of exponentials); each device's
        # one-hot of its shifted labels is the labels' one-hot against its shard's classes, and
        # the shards' classes tile the whole vocabulary's
        for world in (2, 4):
            with self.subTest(world=world):
                self.assert_verdict(["jax", f"{M}:build_manual", "--world", str(world)], "refines")

    def test_a_target_pick_partitioned_by_xla_refines_on_2_and_4_devices(self):
        # take_along_axis over the sharded classes: each device's clamped, masked pick
        for world in (2, 4):
            with self.subTest(world=world):
                self.assert_verdict(["jax", f"{M}:build_take", "--world", str(world)], "refines")

    def test_a_target_pick_written_by_hand_refines_with_the_labels_range_stated(self):
        # the reference wraps a negative label and reads one past the classes as NaN, the devices
        # give zeros: equal for labels within the classes. Without that range the report says
        # which range to state; with it, every device's clipped, masked pick is read as its shard
        # of the pick, at 2 and 4 devices
        for world in (2, 4):
            with self.subTest(world=world):
                d = self.folder()
                capture(["jax", f"{M}:build_manual_take", "--world", str(world)], d)
                hlo = ("gs.hlo", "gd.hlo", ("--ranks", str(world)))
                code, report, text = check(d, *hlo)
                self.assertEqual(report["verdict"], "unproved", text)
                self.assertIn("G_s input 'labels'", text)
                self.assertIn('add "in_range": [0, 32] to its relations entry', text)
                state_range(d, "labels", 0, 32)
                code, report, text = check(d, *hlo)
                self.assertEqual((code, report["verdict"]), (0, "refines"), text)

    def _with_labels_range(self, build, world):
        d = self.folder()
        capture(["jax", f"{M}:{build}", "--world", str(world)], d)
        state_range(d, "labels", 0, 32)
        return check(d, "gs.hlo", "gd.hlo", ("--ranks", str(world)))

    def test_a_training_step_over_the_pick_by_hand_refines_with_the_labels_range_stated(self):
        # the loss and one step of gradient descent of h and w: each device's gradient of its pick
        # is a scatter at its clipped labels, zeroed outside its classes; the sign test of
        # logsumexp's derivative of log(abs(s)) is decided (a sum of exponentials)
        for world in (2, 4):
            with self.subTest(world=world):
                code, report, text = self._with_labels_range("build_manual_take_step", world)
                self.assertEqual((code, report["verdict"]), (0, "refines"), text)

    def test_a_training_step_partitioned_by_xla_refines_with_the_labels_range_stated(self):
        # each device scatters every row's gradient at its shifted label; one past its classes adds
        # nothing, as XLA drops the update
        for world in (2, 4):
            with self.subTest(world=world):
                code, report, text = self._with_labels_range("build_take_step", world)
                self.assertEqual((code, report["verdict"]), (0, "refines"), text)

    def test_a_training_step_over_an_unmasked_pick_is_a_bug_at_the_pick(self):
        code, report, text = self._with_labels_range("build_manual_take_step_unmasked", 2)
        self.assertEqual((code, report["verdict"]), (1, "not-refined"), text)
        self.assertEqual("gather.2", report["failure"]["operator"], text)

    def test_a_pick_by_hand_whose_other_devices_labels_are_left_unzeroed_is_a_bug(self):
        report = self.assert_verdict(["jax", f"{M}:build_manual_take_unmasked", "--world", "2"], "not-refined")
        self.assertEqual("gather.2", report["failure"]["operator"], report)

    def test_a_local_max_and_a_missing_offset_are_bugs_where_they_show(self):
        # the shifted logits mix scales; the one-hot compares unshifted labels with a shard's classes
        for build, where in (("build_manual_local_max", "sub.2"), ("build_manual_no_offset", "eq.20")):
            with self.subTest(build=build):
                report = self.assert_verdict(["jax", f"{M}:{build}", "--world", "2"], "not-refined")
                self.assertEqual(where, report["failure"]["operator"], report)


if __name__ == "__main__":
    unittest.main()
