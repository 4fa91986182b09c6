"""What CI systems are handed: the SARIF logs validate against the SARIF 2.1.0 schema, and the
README's CI recipe runs as written on the examples in a fresh clone.

The schema (src/test/resources/sarif/sarif-2.1.0-rtm.5.json) is the SARIF 2.1.0 JSON schema as
SchemaStore publishes it (the 2.1.0 release candidate 5 text that OASIS approved as 2.1.0), taken
from Microsoft's @microsoft/jest-sarif package (MIT). Needs Debian's python3-jsonschema and
python3-pytest; each test says so and skips without them.
"""

import copy
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

from support import EXAMPLES, LAUNCHER, ROOT

SCHEMA = os.path.join(ROOT, "src", "test", "resources", "sarif", "sarif-2.1.0-rtm.5.json")

try:
    import jsonschema
except ImportError:  # pragma: no cover - reported by the skip
    jsonschema = None

try:
    import pytest  # noqa: F401
    PYTEST = True
except ImportError:  # pragma: no cover
    PYTEST = False


def entangle(*args):
    return subprocess.run([LAUNCHER, *map(str, args)], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL, check=False)


def example(name, *files):
    return [os.path.join(EXAMPLES, name, f) for f in files]


@unittest.skipIf(jsonschema is None,
                 f"jsonschema is not importable by {sys.executable}: install Debian's python3-jsonschema")
class SarifSchemaTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(SCHEMA, encoding="utf-8") as f:
            cls.validator = jsonschema.Draft4Validator(
                json.load(f), format_checker=jsonschema.FormatChecker())
        cls.tmp = tempfile.mkdtemp(prefix="entangle-sarif-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def valid(self, path):
        with open(path, encoding="utf-8") as f:
            log = json.load(f)
        errors = sorted(self.validator.iter_errors(log), key=lambda e: list(e.path))
        self.assertEqual([], [f"{list(e.path)}: {e.message}" for e in errors])
        return log

    def check(self, name, expected_exit):
        out = os.path.join(self.tmp, name + ".sarif")
        gs, gd, ri = example(name, "gs.json", "gd.json", "ri.json")
        run = entangle("check", gs, gd, "--rel", ri, "--sarif", out)
        self.assertEqual(expected_exit, run.returncode, run.stderr)
        return self.valid(out)

    def test_a_failure_validates(self):
        log = self.check("bug-mlp-missing-allreduce", 1)
        result = log["runs"][0]["results"][0]
        self.assertEqual("not-refined", result["ruleId"])
        # the distributed code's line, and the sequential model's operator as a related location
        self.assertEqual(85, result["locations"][0]["physicalLocation"]["region"]["startLine"])
        self.assertEqual(
            134, result["relatedLocations"][0]["physicalLocation"]["region"]["startLine"])

    def test_an_expectation_failure_and_an_hlo_failure_validate(self):
        self.assertEqual("expectation-violated",
                         self.check("bug-loss-not-scaled", 1)["runs"][0]["results"][0]["ruleId"])
        self.check("bug-hlo-linear-tp2-bias-before-allreduce", 1)

    def test_a_refinement_validates(self):
        self.assertEqual([], self.check("mlp-tp2", 0)["runs"][0]["results"])

    def test_a_whole_batch_validates(self):
        out = os.path.join(self.tmp, "batch.sarif")
        run = entangle("batch", EXAMPLES, "--sarif", out)
        self.assertEqual(0, run.returncode, run.stdout + run.stderr)
        log = self.valid(out)
        cases = {r["properties"]["case"] for r in log["runs"][0]["results"]}
        self.assertIn("bug-mlp-missing-allreduce", cases)

    def test_the_validator_rejects_a_broken_log(self):
        log = self.check("bug-mlp-missing-allreduce", 1)
        broken = copy.deepcopy(log)
        broken["runs"][0]["results"][0]["level"] = "fatal"
        self.assertTrue(any(True for _ in self.validator.iter_errors(broken)))
        broken = copy.deepcopy(log)
        del broken["runs"][0]["tool"]
        self.assertTrue(any(True for _ in self.validator.iter_errors(broken)))


def recipe_commands(marker):
    """The shell commands of a README recipe: `run:` blocks of the YAML, or the lines of a block."""
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        text = f.read()
    m = re.search(rf"<!-- {marker}:begin -->\n```[a-z]*\n(.*?)```\n<!-- {marker}:end -->", text, re.S)
    if m is None:
        raise AssertionError(f"README.md has no {marker} block")
    body = m.group(1)
    if not body.lstrip().startswith("name:"):
        return [l for l in body.splitlines() if l.strip()]
    commands = []
    lines = body.splitlines()
    for i, line in enumerate(lines):
        s = line.strip()
        if s == "run: |":
            indent = None
            for nxt in lines[i + 1:]:
                if not nxt.strip():
                    continue
                width = len(nxt) - len(nxt.lstrip())
                indent = width if indent is None else indent
                if width < indent:
                    break
                commands.append(nxt.strip())
        elif s.startswith("run: "):
            commands.append(s[len("run: "):])
    return commands


# The cases the recipes run on in the clone: one that refines, a bug, an HLO pair and one left
# unproved. Every case's report through `batch` is test_roundtrip's; here the recipes' commands
# are what is tested.
RECIPE_CASES = ("mlp-tp2", "bug-mlp-missing-allreduce", "hlo-linear-tp2", "vocab-parallel-cross-entropy-tp2")


def _reuse_the_build(clone):
    """Gives the clone the jar scripts/test built first (from the working tree), newer than the
    clone's sources, so the launcher does not build it again; the launcher makes the clone's
    class archive on first use (an archive holds its jar's path, so the checkout's would not
    serve). Without a jar in the checkout, the launcher builds one, as for a user."""
    jar = os.path.join(ROOT, "target", "entangle.jar")
    if not os.path.isfile(jar):
        return
    os.makedirs(os.path.join(clone, "target"))
    copy = os.path.join(clone, "target", "entangle.jar")
    shutil.copyfile(jar, copy)
    later = time.time() + 1
    os.utime(copy, (later, later))


def _keep_only_cases(examples, names):
    for name in os.listdir(examples):
        path = os.path.join(examples, name)
        if os.path.isdir(path) and name not in names:
            shutil.rmtree(path)


@unittest.skipIf(shutil.which("git") is None, "git is not installed; the recipe test clones the repository")
class CiRecipeTest(unittest.TestCase):
    """Both recipes run as written in a fresh clone of the repository's committed state, with the
    cases of RECIPE_CASES left in its examples/."""

    @classmethod
    def setUpClass(cls):
        if not os.path.isdir(os.path.join(ROOT, ".git")) and not os.path.isfile(os.path.join(ROOT, ".git")):
            raise unittest.SkipTest(f"{ROOT} is not a git checkout; nothing to clone")
        cls.tmp = tempfile.mkdtemp(prefix="entangle-recipe-")
        cls.clone = os.path.join(cls.tmp, "repo")
        subprocess.run(["git", "clone", "-q", "--no-hardlinks", ROOT, cls.clone], check=True,
                       stdin=subprocess.DEVNULL)
        _reuse_the_build(cls.clone)
        _keep_only_cases(os.path.join(cls.clone, "examples"), RECIPE_CASES)
        # python3 in the recipes is the Python running these tests (it has pytest).
        cls.bin = os.path.join(cls.tmp, "bin")
        os.makedirs(cls.bin)
        os.symlink(sys.executable, os.path.join(cls.bin, "python3"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def run_recipe(self, marker):
        env = dict(os.environ, PATH=self.bin + os.pathsep + os.environ.get("PATH", ""), CI="true")
        ran = []
        for cmd in recipe_commands(marker):
            if re.match(r"(sudo )?(python3 -m )?pip3? install|(sudo )?apt(-get)? ", cmd):
                continue  # installing tools is the machine's business; .ci/run installs them here
            run = subprocess.run(["bash", "-c", cmd], cwd=self.clone, env=env, text=True,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 stdin=subprocess.DEVNULL, check=False)
            self.assertEqual(0, run.returncode, f"$ {cmd}\n{run.stdout}\n{run.stderr}")
            ran.append((cmd, run))
        self.assertTrue(ran, f"the {marker} recipe has no command")
        return ran

    def test_the_github_actions_recipe_runs_as_written(self):
        ran = self.run_recipe("ci-recipe")
        out = ran[-1][1].stdout
        self.assertRegex(out, rf"{len(RECIPE_CASES)} cases, {len(RECIPE_CASES)} met their expectation")
        for f in ("entangle.xml", "entangle.sarif", "entangle.json"):
            self.assertTrue(os.path.getsize(os.path.join(self.clone, "reports", f)) > 0, f)

    @unittest.skipUnless(PYTEST, f"pytest is not importable by {sys.executable}: install Debian's python3-pytest")
    def test_the_pytest_recipe_runs_as_written(self):
        ran = self.run_recipe("ci-recipe-pytest")
        self.assertRegex(ran[-1][1].stdout, r"\d+ passed")
        junit = os.path.join(self.clone, "reports", "pytest-entangle.xml")
        with open(junit, encoding="utf-8") as f:
            self.assertIn("test_case_meets_its_expectation[bug-mlp-missing-allreduce]", f.read())


if __name__ == "__main__":
    unittest.main()
