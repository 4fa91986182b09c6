"""The committed example cases: well-formed, consistent, and what make_examples.py writes."""

import filecmp
import os
import re
import subprocess
import sys
import tempfile
import unittest

import support
from support import EXAMPLES, needs_torch

REQUIRED = {
    "fig1-matmul", "mlp-tp2", "mlp-tp4", "attention-heads-tp2", "sp-layernorm-tp2",
    "vocab-embedding-tp2", "grad-accum", "bug-mlp-missing-allreduce",
    "bug-mlp-bias-before-allreduce", "bug-wrong-slice-offset", "bug-expert-sharded",
    "bug-loss-not-scaled", "bug-grad-accum-unscaled",
}
VERDICTS = {"refines", "unproved", "not-refined", "expectation-violated"}
# a correct case refines, or, where a lemma is known missing, is unproved (never not-refined)
CORRECT = {"refines", "unproved"}
REF = re.compile(r"\br(\d+)\.([A-Za-z_][A-Za-z0-9_.]*)")


class ExampleCase:
    def __init__(self, name):
        folder = os.path.join(EXAMPLES, name)
        self.name = name
        self.gs_json = support.load(os.path.join(folder, "gs.json"))
        self.gd_json = support.load(os.path.join(folder, "gd.json"))
        self.ri = support.load(os.path.join(folder, "ri.json"))
        self.expected = support.load(os.path.join(folder, "expected.json"))
        self.gs = support.check_graph(self.gs_json, f"{name}/gs.json")
        self.ranks = support.check_distributed(self.gd_json, f"{name}/gd.json")


class ExamplesTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.cases = [ExampleCase(name) for name in support.case_names()]

    def test_all_required_cases_exist(self):
        self.assertLessEqual(REQUIRED, {c.name for c in self.cases})

    def test_expected_verdicts(self):
        for c in self.cases:
            with self.subTest(c.name):
                e = c.expected
                self.assertIn(e["verdict"], VERDICTS)
                self.assertTrue(e.get("note"))
                self.assertEqual(e["verdict"] in CORRECT, not c.name.startswith("bug-"))
                if "operator" in e:
                    node = c.gs.get(e["operator"])
                    self.assertIsNotNone(node, f"operator {e['operator']} is not a G_s node")
                    self.assertEqual(node["op"], "call_function")

    def test_bug_operators(self):
        expected = {
            "bug-mlp-missing-allreduce": "aten.addmm.default",
            "bug-mlp-bias-before-allreduce": "aten.addmm.default",
            "bug-wrong-slice-offset": "aten.addmm.default",
            "bug-expert-sharded": "aten.mm.default",
            "bug-grad-accum-unscaled": "aten.mean.default",
        }
        by_name = {c.name: c for c in self.cases}
        for name, target in expected.items():
            with self.subTest(name):
                c = by_name[name]
                self.assertEqual(c.gs[c.expected["operator"]]["target"], target)
        self.assertNotIn("operator", by_name["bug-loss-not-scaled"].expected)
        self.assertTrue(by_name["bug-loss-not-scaled"].ri.get("expect"))

    def test_relations_resolve_with_matching_shapes(self):
        for c in self.cases:
            with self.subTest(c.name):
                self.assertEqual(c.ri["format"], "entangle-relation/1")
                for entry in c.ri["relations"]:
                    self._check_entry(c, entry)
                for entry in c.ri.get("expect", []):
                    self.assertIsNotNone(support.resolve(c.gs, entry["gs"]))
                    for k, name in REF.findall(entry["gd"]):
                        self.assertIsNotNone(support.resolve(c.ranks[int(k)], name))

    def _check_entry(self, c, entry):
        node = support.resolve(c.gs, entry["gs"])
        self.assertIsNotNone(node, f"{entry['gs']} names no G_s node")
        self.assertEqual(node["op"], "placeholder", "the examples relate graph inputs only")
        shape = node["meta"]["shape"]
        name = entry.get("as", entry["gs"])
        if "shard" in entry:
            parts = [support.resolve(r, name)["meta"]["shape"] for r in c.ranks]
            dim = entry["shard"]
            self.assertEqual(sum(p[dim] for p in parts), shape[dim])
            for p in parts:
                self.assertEqual(p[:dim] + p[dim + 1:], shape[:dim] + shape[dim + 1:])
        elif entry.get("replicate"):
            for r in c.ranks:
                self.assertEqual(support.resolve(r, name)["meta"]["shape"], shape)
        else:
            refs = REF.findall(entry["gd"])
            self.assertTrue(refs, entry)
            for k, ref in refs:
                self.assertIsNotNone(support.resolve(c.ranks[int(k)], ref), ref)

    def test_collectives_are_functional_and_matched_across_ranks(self):
        for c in self.cases:
            with self.subTest(c.name):
                sequences = []
                groups = c.gd_json.get("process_groups") or {}
                for nodes in c.ranks:
                    seq = [(n["target"], self._rank_independent_args(n, groups)) for n in nodes.values()
                           if "c10d_functional" in n["target"]]
                    for target, _ in seq:
                        self.assertIn(target, support.FUNCTIONAL_TARGETS)
                    sequences.append(seq)
                self.assertTrue(all(s == sequences[0] for s in sequences))
                self._check_all_to_all_splits(c.ranks)
                if c.gd_json["world_size"] > 1:
                    world = list(range(c.gd_json["world_size"]))
                    self.assertEqual(c.gd_json["process_groups"]["tp"], world)
                    for ranks in c.gd_json["process_groups"].values():  # (a mesh's subgroups)
                        self.assertTrue(ranks and set(ranks) <= set(world), ranks)
                self.assertFalse([n for n in c.gs.values() if "c10d" in n["target"]])

    @staticmethod
    def _rank_independent_args(node, groups):
        """A collective's arguments after its input, but the split sizes of all_to_all_single,
        which are each rank's own, and with a group's name read as its size (on a two-dimensional
        mesh each rank reduces over its own data-parallel group, ``dp0`` or ``dp1``)."""
        args = node["args"][3:] if node["target"].endswith("all_to_all_single.default") \
            else node["args"][1:]
        return [len(groups[a]) if isinstance(a, str) and a in groups else a for a in args]

    def _check_all_to_all_splits(self, ranks):
        """The n-th all_to_all_single of every rank agrees: what rank j sends rank k (j's input
        split k) is what k receives from j (k's output split j)."""
        calls = [[n for n in nodes.values() if n["target"].endswith("all_to_all_single.default")]
                 for nodes in ranks]
        for i in range(len(calls[0])):
            for j, sender in enumerate(calls):
                for k, receiver in enumerate(calls):
                    self.assertEqual(sender[i]["args"][2][k], receiver[i]["args"][1][j])

    def test_each_collective_is_waited_on(self):
        for c in self.cases:
            for nodes in c.ranks:
                waited = {n["args"][0]["node"] for n in nodes.values()
                          if n["target"] == "_c10d_functional.wait_tensor.default"}
                issued = {n["name"] for n in nodes.values()
                          if n["target"].startswith("_c10d_functional.")
                          and not n["target"].startswith("_c10d_functional.wait_tensor")}
                self.assertEqual(issued, waited, c.name)

    def test_graphs_are_small_and_traced_from_the_models(self):
        for c in self.cases:
            with self.subTest(c.name):
                # components stay under 90 nodes a graph (a training step with its optimizer); the
                # whole GPT adds up to 60 a layer, and a rank that splits its tensors into one chunk
                # per rank (an all-to-all's) 4 a rank
                layers = int(c.name.rsplit("-l", 1)[1]) if c.name.startswith("gpt-") else 0
                limit = 90 + 60 * layers + 4 * len(c.ranks)
                for nodes in [c.gs] + c.ranks:
                    self.assertLess(len(nodes), limit)
                    traced = [n for n in nodes.values() if n["op"] == "call_function"]
                    self.assertTrue(traced)
                    for n in traced:
                        self.assertTrue(n["meta"]["stack_trace"].startswith(
                            'File "scripts/example_models.py", line '), n["name"])

    def test_readme_lists_every_case_with_its_verdict(self):
        with open(os.path.join(EXAMPLES, "README.md"), encoding="utf-8") as f:
            readme = f.read()
        for c in self.cases:
            row = next((line for line in readme.splitlines() if line.startswith(f"| `{c.name}` |")),
                       None)
            self.assertIsNotNone(row, c.name)
            self.assertIn(f"`{c.expected['verdict']}`", row)


@needs_torch
class RegenerationTest(unittest.TestCase):
    """make_examples.py rewrites exactly the committed files."""

    def test_examples_are_up_to_date(self):
        with tempfile.TemporaryDirectory() as out:
            result = subprocess.run(
                [sys.executable, os.path.join(support.SCRIPTS, "make_examples.py"), "--out", out],
                capture_output=True, text=True, timeout=600)
            self.assertEqual(result.returncode, 0, result.stderr)
            self._same_tree(EXAMPLES, out,
                            ignore=support.hlo_case_names() + support.recipe_folders())

    def _same_tree(self, a, b, ignore=()):
        cmp = filecmp.dircmp(a, b, ignore=list(ignore))
        self.assertEqual(cmp.left_only + cmp.right_only, [], "files differ in presence")
        _, mismatch, errors = filecmp.cmpfiles(a, b, cmp.common_files, shallow=False)
        self.assertEqual(mismatch + errors, [],
                         f"{a} differs from a fresh run; run python3 scripts/make_examples.py")
        for sub in cmp.common_dirs:
            self._same_tree(os.path.join(a, sub), os.path.join(b, sub))


if __name__ == "__main__":
    unittest.main()
