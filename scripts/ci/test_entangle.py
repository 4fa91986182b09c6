"""pytest wrapper around `entangle batch`: one pytest test per case of a manifest.

Run from anywhere in a checkout (Python 3 and pytest; Java 17 and Maven for the first build):

    python3 -m pytest scripts/ci/test_entangle.py --junitxml=reports/pytest-entangle.xml

ENTANGLE_MANIFEST names a batch manifest or a folder of case folders (default: examples/, each case
a folder with an expected.json); ENTANGLE_REPORTS a folder for the batch's own reports (entangle.json, entangle.xml and entangle.sarif; default: a temporary
folder). The batch runs once, all cases in one JVM; each test then says whether its case met the
expectation the manifest gives it, and, when not, why (the verdict, the failing operator and its
source line).
"""

import json
import os
import subprocess
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MANIFEST = os.path.abspath(os.environ.get("ENTANGLE_MANIFEST", os.path.join(ROOT, "examples")))


def _case_names():
    if os.path.isdir(MANIFEST):
        return sorted(d for d in os.listdir(MANIFEST)
                      if os.path.isfile(os.path.join(MANIFEST, d, "expected.json")))
    with open(MANIFEST, encoding="utf-8") as f:
        return [c["name"] for c in json.load(f)["cases"]]


@pytest.fixture(scope="session")
def batch():
    """Runs `entangle batch` once; returns its JSON report by case name."""
    reports = os.environ.get("ENTANGLE_REPORTS") or tempfile.mkdtemp(prefix="entangle-")
    os.makedirs(reports, exist_ok=True)
    out = os.path.join(reports, "entangle.json")
    cmd = [os.path.join(ROOT, "scripts", "entangle"), "batch", MANIFEST, "--json", out,
           "--junit", os.path.join(reports, "entangle.xml"),
           "--sarif", os.path.join(reports, "entangle.sarif")]
    run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         stdin=subprocess.DEVNULL, check=False)
    print(run.stdout)
    if run.returncode not in (0, 1) or not os.path.exists(out):
        pytest.fail(f"entangle batch {MANIFEST} exited {run.returncode}:\n{run.stderr}",
                    pytrace=False)
    with open(out, encoding="utf-8") as f:
        return {c["name"]: c for c in json.load(f)["cases"]}


def _why(case):
    lines = [case.get("mismatch") or "", f"verdict: {case['verdict']}"]
    failure = (case.get("report") or {}).get("failure")
    if failure:
        lines.append(f"operator: {failure['operator']} ({failure['target']})")
        frames = [l.strip() for l in (failure.get("stack_trace") or "").splitlines()
                  if l.strip().startswith("File ")]
        if frames:
            lines.append("source: " + frames[-1])
        lines.append("why: " + failure["reason"])
    if case.get("error"):
        lines.append("error: " + case["error"])
    return "\n".join(l for l in lines if l)


@pytest.mark.parametrize("name", _case_names())
def test_case_meets_its_expectation(batch, name):
    case = batch[name]
    if not case["met"]:
        pytest.fail(_why(case), pytrace=False)
