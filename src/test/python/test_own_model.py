"""README's "Check your own model" recipe, run line by line exactly as README writes it."""

import os
import re
import subprocess
import unittest

from support import ROOT, needs_torch

MARKER = "<!-- recipe: own-model"


def recipe_lines():
    """The command lines of README's recipe block (the fenced block after the marker)."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    start = text.index(MARKER)
    block = re.search(r"```\n(.*?)```", text[start:], re.S)
    return [line for line in block.group(1).splitlines() if line.strip()]


class OwnModelRecipeTest(unittest.TestCase):
    def test_the_recipe_has_an_export_and_a_check_for_the_model_and_its_bug(self):
        lines = recipe_lines()
        self.assertEqual(4, len(lines), lines)
        self.assertTrue(lines[0].startswith("/usr/bin/python3 examples/own-model/export.py"))
        self.assertTrue(lines[1].startswith("scripts/entangle check"))
        self.assertIn("--bug", lines[2])

    @needs_torch
    @unittest.skipUnless(os.path.exists("/usr/bin/python3"), "README's recipe runs /usr/bin/python3")
    def test_the_recipe_as_written_proves_the_split_and_locates_the_bug(self):
        runs = []
        for line in recipe_lines():
            done = subprocess.run(["bash", "-c", line], cwd=ROOT, capture_output=True, text=True,
                                  timeout=600)
            runs.append(done)
            print(f"  $ {line}\n    exit {done.returncode}", flush=True)
        export, check, export_bug, check_bug = runs
        self.assertEqual(0, export.returncode, export.stderr)
        self.assertEqual(0, check.returncode, check.stdout + check.stderr)
        self.assertEqual("refines", check.stdout.splitlines()[0])
        self.assertEqual(0, export_bug.returncode, export_bug.stderr)
        self.assertEqual(1, check_bug.returncode, check_bug.stdout + check_bug.stderr)
        out = check_bug.stdout
        self.assertEqual("not-refined", out.splitlines()[0])
        self.assertIn("operator: addmm_1", out)
        self.assertIn("line:     examples/own-model/model.py:20", out)
        first_gd = out.split("in G_d, nearest first")[1].splitlines()[1].strip()
        self.assertTrue(first_gd.startswith("examples/own-model/model.py:37"), first_gd)
        with open(os.path.join(ROOT, "examples/own-model/model.py"), encoding="utf-8") as f:
            self.assertEqual("return partial + self.fc2.bias", f.read().splitlines()[36].strip())


if __name__ == "__main__":
    unittest.main()
