"""`entangle import --relation` derives, from the sharding annotations of the HLO that JAX
compiles, the same input relation entangle_capture derives from the PartitionSpecs, and it
checks the partitioned program."""

import json
import os
import subprocess
import unittest

from checking import ENTANGLE, CaptureCase, capture, check, has_module

X = "entangle_capture.examples."


@unittest.skipUnless(has_module("jax"), "jax is not installed (.ci/run installs it into .venv)")
class HloRelationTest(CaptureCase):
    def assert_same_relation_and_refines(self, module, world):
        d = self.folder()
        capture(["jax", f"{X}{module}:build", "--world", str(world)], d)
        derived = os.path.join(d, "ri-hlo.json")
        for hlo, out, extra in (("gs.hlo", "gs.json", ["--relation", derived]), ("gd.hlo", "gd.json", ["--ranks", str(world)])):
            proc = subprocess.run([ENTANGLE, "import", os.path.join(d, hlo), "-o", os.path.join(d, out), *extra], capture_output=True, text=True, timeout=600)
            self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(os.path.join(d, "ri.json"), encoding="utf-8") as f:
            captured = json.load(f)
        with open(derived, encoding="utf-8") as f:
            relation = json.load(f)
        self.assertEqual(relation["relations"], captured["relations"])
        relation["expect"] = captured["expect"]
        with open(os.path.join(d, "ri.json"), "w", encoding="utf-8") as f:
            json.dump(relation, f)
        code, report, text = check(d)
        self.assertEqual((code, report["verdict"]), (0, "refines"), text)

    def test_mlp_on_2_devices(self):
        self.assert_same_relation_and_refines("jax_mlp", 2)

    def test_attention_on_4_and_8_devices(self):
        for world in (4, 8):
            with self.subTest(world=world):
                self.assert_same_relation_and_refines("jax_attention", world)


if __name__ == "__main__":
    unittest.main()
