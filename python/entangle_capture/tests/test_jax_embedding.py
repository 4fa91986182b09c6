"""A JAX embedding lookup with its table sharded by rows."""

import unittest

from checking import CaptureCase, capture, check, has_module, state_range

M = "entangle_capture.examples.jax_embedding"


@unittest.skipUnless(has_module("jax"), "jax is not installed (.ci/run installs it into .venv)")
class JaxEmbeddingTest(CaptureCase):
    def test_partitioned_by_xla_refines_on_2_and_4_devices(self):
        # each device's lookup at the ids clamped into its rows, zeroed outside them
        for world in (2, 4):
            with self.subTest(world=world):
                self.assert_verdict(["jax", f"{M}:build", "--world", str(world)], "refines")

    def test_written_by_hand_refines_with_the_ids_range_stated(self):
        # jnp.take gives NaN rows for ids outside the table, the devices zeros: equal for ids
        # within it, which the relation states with in_range
        for world in (2, 4):
            with self.subTest(world=world):
                d = self.folder()
                capture(["jax", f"{M}:build_manual", "--world", str(world)], d)
                hlo = ("gs.hlo", "gd.hlo", ("--ranks", str(world)))
                code, report, text = check(d, *hlo)
                self.assertEqual(report["verdict"], "unproved", text)
                state_range(d, "ids", 0, 32)
                code, report, text = check(d, *hlo)
                self.assertEqual((code, report["verdict"]), (0, "refines"), text)

    def test_rows_of_other_devices_ids_left_unzeroed_are_not_refined(self):
        self.assert_verdict(["jax", f"{M}:build_manual_unmasked", "--world", "2"], "not-refined")


if __name__ == "__main__":
    unittest.main()
