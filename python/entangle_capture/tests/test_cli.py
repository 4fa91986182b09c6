"""The command line's errors: exit 2 and one line naming what to change, no traceback.

The errors raised while the ranks trace run the command as a process, as a user does: the ranks
write to the process's stderr, which only a process's output shows whole. The others, raised
before any rank starts, call its ``main`` in this process (torch is imported once)."""

import os
import subprocess
import sys
import tempfile
import unittest

from checking import PACKAGE_ROOT, has_module, run_main


def run(*args):
    """``python -m entangle_capture ARGS -o TMP`` as a process."""
    env = {**os.environ, "PYTHONPATH": os.path.dirname(os.path.abspath(__file__))}
    with tempfile.TemporaryDirectory(prefix="entangle-capture-cli-") as out:
        return subprocess.run([sys.executable, "-m", "entangle_capture", *args, "-o", out], cwd=PACKAGE_ROOT, capture_output=True, text=True, timeout=600, env=env)


def run_here(*args):
    """The command's ``main`` on ARGS in this process, as the process ``run`` would have ended."""
    with tempfile.TemporaryDirectory(prefix="entangle-capture-cli-") as folder:
        code, out, err = run_main(list(args), folder)
    return subprocess.CompletedProcess(args, code, out, err)


@unittest.skipUnless(has_module("torch"), "torch 2 is not installed (.ci/run installs it into .venv)")
class CliErrorsTest(unittest.TestCase):
    def assert_one_line_error(self, proc, *words):
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertNotIn("Traceback", proc.stderr)
        lines = proc.stderr.strip().split("\n")
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertTrue(lines[0].startswith("entangle_capture: "), proc.stderr)
        for w in words:
            self.assertIn(w, lines[0])

    def test_a_missing_plan_names_the_module_and_attribute(self):
        proc = run_here("torch", "entangle_capture.examples.mlp:build", "--plan", "entangle_capture.examples.mlp:no_such_plan", "--world", "2")
        self.assert_one_line_error(proc, "no_such_plan", "entangle_capture.examples.mlp")

    def test_a_spec_without_a_colon_says_the_form(self):
        proc = run_here("torch", "mymodel", "--plan", "mymodel:plan", "--world", "2")
        self.assert_one_line_error(proc, "MODULE:NAME")

    def test_a_plan_entry_naming_no_submodule_is_an_error_not_skipped(self):
        proc = run("torch", "entangle_capture.examples.mlp:build", "--plan", "entangle_capture.examples.attention:plan", "--world", "2")
        self.assert_one_line_error(proc, "'q'", "fc1, fc2")

    def test_a_failure_inside_torch_is_one_line_pointing_at_debug(self):
        # fc1 row-parallel: its input is declared sharded by columns, which does not fit fc1
        proc = run("torch", "entangle_capture.examples.mlp:build", "--plan", "plans_for_errors:fc1_rowwise", "--world", "2")
        self.assert_one_line_error(proc, "--debug")


if __name__ == "__main__":
    unittest.main()
