"""DeepSpeed-Ulysses sequence parallelism in JAX: all-to-alls trade sequence chunks for heads and
back, one head per device at 4 devices."""

import unittest

from checking import CaptureCase, has_module

M = "entangle_capture.examples.jax_ulysses"


@unittest.skipUnless(has_module("jax"), "jax is not installed (.ci/run installs it into .venv)")
class JaxUlyssesTest(CaptureCase):
    def test_all_to_all_attention_refines_on_2_and_4_devices(self):
        # at 4 devices each holds one head: JAX names each view of a value anew, and the layout
        # procedure reads a tensor and its views as one source
        for world in (2, 4):
            with self.subTest(world=world):
                self.assert_verdict(["jax", f"{M}:build_manual", "--world", str(world)], "refines")

    def test_attending_within_the_local_chunk_is_caught_at_the_scores(self):
        for world in (2, 4):
            with self.subTest(world=world):
                self.assert_verdict(["jax", f"{M}:build_manual_local", "--world", str(world)], "not-refined",
                                    target="xla.dot")


if __name__ == "__main__":
    unittest.main()
