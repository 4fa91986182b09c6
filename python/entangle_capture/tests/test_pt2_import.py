"""`entangle import` of a torch.export archive (.pt2) as G_s, checked against the distributed
program entangle_capture captures from the same module and plan."""

import json
import os
import subprocess
import sys
import unittest

from checking import ENTANGLE, PACKAGE_ROOT, CaptureCase, capture, check, has_module

M = "entangle_capture.examples."

# Exports BUILD()'s module with torch.export, decomposed as entangle_capture decomposes, and saves
# it with torch.export.save to PATH.
EXPORT = """
import sys, torch
from entangle_capture.loading import load
from entangle_capture.torch_capture import decompositions
torch.manual_seed(0)
module, args = load(sys.argv[1], "build function")()
program = torch.export.export(module, tuple(args)).run_decompositions(decompositions())
torch.export.save(program, sys.argv[2])
"""


def export_archive(build, path):
    proc = subprocess.run([sys.executable, "-c", EXPORT, build, path], cwd=PACKAGE_ROOT, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise AssertionError(f"torch.export of {build} exited {proc.returncode}:\n{proc.stderr}")


def outputs(graph_file):
    with open(graph_file, encoding="utf-8") as f:
        nodes = json.load(f)["nodes"]
    return [a["node"] for a in next(n for n in nodes if n["op"] == "output")["args"][0]]


def retarget_expectations(folder, old_gs, new_gs):
    """Points the relation's `expect` entries, written for the captured G_s's outputs, at the
    imported G_s's outputs in the same positions."""
    rename = dict(zip(outputs(old_gs), outputs(new_gs)))
    path = os.path.join(folder, "ri.json")
    with open(path, encoding="utf-8") as f:
        ri = json.load(f)
    for e in ri.get("expect", []):
        e["gs"] = rename[e["gs"]]
    with open(path, "w", encoding="utf-8") as f:
        json.dump(ri, f)


@unittest.skipUnless(has_module("torch"), "torch 2 is not installed (.ci/run installs it into .venv)")
class Pt2ImportTest(CaptureCase):
    def imported_check(self, module, plan, world):
        """Captures MODULE:build with PLAN, exports the same module to a .pt2 archive, imports it
        as G_s and checks it against the captured G_d: (exit code, report, text)."""
        d = self.folder()
        capture(["torch", f"{M}{module}:build", "--plan", f"{M}{module}:{plan}", "--world", str(world)], d)
        archive = os.path.join(d, "gs.pt2")
        export_archive(f"{M}{module}:build", archive)
        proc = subprocess.run([ENTANGLE, "import", archive, "-o", os.path.join(d, "gs_pt2.json")], capture_output=True, text=True, timeout=600)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        retarget_expectations(d, os.path.join(d, "gs.json"), os.path.join(d, "gs_pt2.json"))
        return check(d, gs="gs_pt2.json")

    def test_the_exported_mlp_refines_to_the_column_then_row_parallel_ranks(self):
        code, report, text = self.imported_check("mlp", "plan", 4)
        self.assertEqual((code, report["verdict"]), (0, "refines"), text)

    def test_the_exported_attention_refines_to_the_heads_split_ranks(self):
        code, report, text = self.imported_check("attention", "plan", 2)
        self.assertEqual((code, report["verdict"]), (0, "refines"), text)

    def test_the_exported_mlp_against_ranks_that_never_reduce_violates_the_expectation(self):
        code, report, text = self.imported_check("mlp", "plan_missing_reduction", 2)
        self.assertEqual((code, report["verdict"]), (1, "expectation-violated"), text)
        self.assertEqual(report["failure"]["target"], "aten.mm.default", text)


if __name__ == "__main__":
    unittest.main()
