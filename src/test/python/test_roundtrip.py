"""Round trips through the checker: ``scripts/entangle check`` on exported graphs.

Runs the launcher ``scripts/entangle`` (which builds the jar on first use) on
every case in ``examples/`` (one ``batch`` run over them all, and one ``check``
for each verdict they expect) and on graphs traced afresh from the example
models, and asserts the verdict, the exit code and the reported operator.
Skipped when the launcher does not exist; the fresh traces also need torch.
ENTANGLE_LAUNCHER names another launcher; ENTANGLE_TEST_TIMEOUT (seconds,
default 900) bounds each run.
"""

import os
import subprocess
import tempfile
import unittest

import support
from support import LAUNCHER, ROOT, needs_torch

if support.TORCH_MISSING is None:
    import torch

    import example_models as m
    import export_fx
    import fx_collectives
    import fx_trace

EXIT = {"refines": 0, "not-refined": 1, "expectation-violated": 1, "unproved": 3}
TIMEOUT = float(os.environ.get("ENTANGLE_TEST_TIMEOUT", "900"))

needs_launcher = unittest.skipUnless(
    os.path.isfile(LAUNCHER),
    f"{os.path.relpath(LAUNCHER, ROOT)} does not exist; the round trips need the checker's"
    " launcher")


def launch(args):
    command = [LAUNCHER] if os.access(LAUNCHER, os.X_OK) else ["sh", LAUNCHER]
    return subprocess.run(command + args, cwd=ROOT, capture_output=True, text=True,
                          timeout=TIMEOUT)


def run_check(folder, out_dir):
    """Runs the checker on folder/{gs,gd,ri}.json; returns (process, report or None)."""
    out = os.path.join(out_dir, "report.json")
    if os.path.exists(out):
        os.remove(out)
    proc = launch(["check", os.path.join(folder, "gs.json"), os.path.join(folder, "gd.json"),
                   "--rel", os.path.join(folder, "ri.json"), "--json", out])
    return proc, (support.load(out) if os.path.exists(out) else None)


class CheckerAssertions(unittest.TestCase):

    def assert_verdict(self, folder, verdict, operator=None):
        with tempfile.TemporaryDirectory() as tmp:
            proc, report = run_check(folder, tmp)
        said = f"\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
        self.assertIsNotNone(report, f"no --json report (exit {proc.returncode}){said}")
        self.assertEqual(proc.returncode, EXIT[verdict], said)
        self.assert_report(folder, report, verdict, operator, said)
        return report

    def assert_report(self, folder, report, verdict, operator, said):
        self.assertEqual(report.get("verdict"), verdict, said)
        for key in ("gs_operators", "gd_operators", "seconds"):
            self.assertIn(key, report.get("stats", {}))
        if verdict == "refines":
            gs = support.check_graph(support.load(os.path.join(folder, "gs.json")))
            mapped = {entry["gs"] for entry in report["output_relation"]}
            for name in support.outputs(gs):
                tag = gs[name]["meta"].get("tag")
                self.assertTrue(name in mapped or tag in mapped, f"output {name} unmapped{said}")
        if verdict in ("not-refined", "unproved"):
            failure = report.get("failure", {})
            self.assertTrue(failure.get("operator"), said)
            if operator is not None:
                self.assertEqual(failure["operator"], operator, said)


@needs_launcher
class ExampleRoundTripTest(CheckerAssertions):

    def test_examples(self):
        """One batch run over examples/: every case's report as its expected.json says."""
        names = support.case_names()
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "batch.json")
            proc = launch(["batch", support.EXAMPLES, "--json", out])
            said = f"\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
            self.assertTrue(os.path.exists(out), f"no --json report (exit {proc.returncode}){said}")
            batch = support.load(out)
        self.assertEqual(proc.returncode, 0, said)
        cases = {case["name"]: case for case in batch["cases"]}
        self.assertLessEqual(set(names), set(cases))
        self.assertTrue(all(case["met"] for case in cases.values()), said)
        for name in names:
            with self.subTest(name):
                folder = os.path.join(support.EXAMPLES, name)
                expected = support.load(os.path.join(folder, "expected.json"))
                case = cases[name]
                self.assertTrue(case["met"], case)
                self.assert_report(folder, case["report"], expected["verdict"],
                                   expected.get("operator"), f"\n{case.get('mismatch')}")

    def test_check_exits_as_each_expected_verdict_says(self):
        """check through the launcher, on the first case expecting each verdict."""
        first = {}
        for name in support.case_names():
            expected = support.load(os.path.join(support.EXAMPLES, name, "expected.json"))
            first.setdefault(expected["verdict"], (name, expected))
        self.assertTrue({"refines", "not-refined"} <= set(first), first)
        for verdict, (name, expected) in sorted(first.items()):
            with self.subTest(name):
                self.assert_verdict(os.path.join(support.EXAMPLES, name), verdict,
                                    expected.get("operator"))


@needs_launcher
@needs_torch
class FreshTraceRoundTripTest(CheckerAssertions):
    """A TP MLP traced now (other sizes than the examples), then broken in two ways."""

    HIDDEN, FFN, TOKENS = 8, 16, 2

    @classmethod
    def setUpClass(cls):
        fx_collectives.ensure_registered()

    def write_case(self, folder, world_size, relations, x_shape=None, **knobs):
        x_shape = x_shape or (self.TOKENS, self.HIDDEN)
        files = [os.path.join(support.SCRIPTS, "example_models.py")]

        def trace(module, x):
            return fx_trace.trace_module(module, {"x": x}, source_files=files, source_root=ROOT)

        gs = trace(m.MLP(self.HIDDEN, self.FFN), torch.zeros(self.TOKENS, self.HIDDEN))
        ranks = [trace(m.ParallelMLP(self.HIDDEN, self.FFN, r, world_size, **knobs),
                       torch.zeros(*x_shape)) for r in range(world_size)]
        export_fx.export_graph(gs, os.path.join(folder, "gs.json"))
        export_fx.export_ranks(ranks, os.path.join(folder, "gd.json"),
                               {"tp": list(range(world_size))})
        export_fx._write_json({"format": "entangle-relation/1", "relations": relations},
                              os.path.join(folder, "ri.json"))
        return gs

    @staticmethod
    def relations(x="replicate", fc2_dim=1):
        x_entry = {"gs": "x", "replicate": True} if x == "replicate" else {"gs": "x", "shard": x}
        return [x_entry, {"gs": "fc1.weight", "shard": 0}, {"gs": "fc1.bias", "shard": 0},
                {"gs": "fc2.weight", "shard": fc2_dim}, {"gs": "fc2.bias", "replicate": True}]

    @staticmethod
    def addmm(gs, n):
        return [x.name for x in gs.graph.nodes
                if x.op == "call_function" and export_fx.target_name(x) == "aten.addmm.default"][n]

    def test_correct_tp_mlp_refines(self):
        for world_size in (2, 4):
            with self.subTest(world_size=world_size), tempfile.TemporaryDirectory() as tmp:
                self.write_case(tmp, world_size, self.relations())
                self.assert_verdict(tmp, "refines")

    def test_all_reduce_removed(self):
        with tempfile.TemporaryDirectory() as tmp:
            gs = self.write_case(tmp, 2, self.relations(), reduce=None)
            self.assert_verdict(tmp, "not-refined", self.addmm(gs, 1))

    def test_input_sharded_along_tokens_instead_of_replicated(self):
        with tempfile.TemporaryDirectory() as tmp:
            gs = self.write_case(tmp, 2, self.relations(x=0),
                                 x_shape=(self.TOKENS // 2, self.HIDDEN))
            self.assert_verdict(tmp, "not-refined", self.addmm(gs, 0))

    def test_relation_with_the_wrong_shard_dim_is_not_accepted(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.write_case(tmp, 2, self.relations(fc2_dim=0))
            proc, _ = run_check(tmp, tmp)
        said = f"\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
        # the shapes do not fit: an input error naming the relation, reported plainly
        self.assertEqual(proc.returncode, 2, said)
        self.assertIn("ri.json", proc.stderr, said)
        self.assertNotIn("Exception", proc.stderr, said)
        self.assertNotIn("\tat ", proc.stderr, said)


if __name__ == "__main__":
    unittest.main()
