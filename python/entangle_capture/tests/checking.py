"""Runs the capture command and `entangle check` on what it wrote, as a user would."""

import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest

PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO_ROOT = os.path.dirname(os.path.dirname(PACKAGE_ROOT))
ENTANGLE = os.environ.get("ENTANGLE", os.path.join(REPO_ROOT, "scripts", "entangle"))


# The most CPU devices a JAX capture of these tests uses: the test process starts JAX with as many.
JAX_DEVICES = 8


def has_module(name):
    """Whether ``name`` can be imported (without importing it: JAX must be configured first)."""
    import importlib.util

    return importlib.util.find_spec(name) is not None


def capture(args, folder, env=None, as_process=False):
    """Runs ``python -m entangle_capture ARGS -o FOLDER``; fails the test with its stderr.

    Unless ``as_process`` (or ``env``) is given, the command's ``main`` runs in this process:
    torch is imported once for all the tests, and the ranks are forked from one server that has
    it; JAX is started once with JAX_DEVICES CPU devices, and a capture on fewer devices uses the
    first ones of its mesh."""
    if not as_process and not env:
        if args[0] == "jax":
            _importable()
            from entangle_capture import jax_capture

            jax_capture.start(JAX_DEVICES)
        code, out, err = run_main(args, folder)
        if code != 0:
            raise AssertionError(f"capture {' '.join(args)} exited {code}:\n{err}")
        return out
    proc = subprocess.run(
        [sys.executable, "-m", "entangle_capture", *args, "-o", folder],
        cwd=PACKAGE_ROOT,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=900,
    )
    if proc.returncode != 0:
        raise AssertionError(f"capture {' '.join(args)} exited {proc.returncode}:\n{proc.stderr}")
    return proc


def _importable():
    if PACKAGE_ROOT not in sys.path:
        sys.path.insert(0, PACKAGE_ROOT)


def run_main(args, folder):
    """The command's ``main`` on ``ARGS -o FOLDER`` in this process: (exit code, stdout, stderr)
    as a process would have had them (what the ranks' own processes print is not among them)."""
    _importable()
    from entangle_capture.__main__ import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([*args, "-o", folder])
    return code, out.getvalue(), err.getvalue()


def check(folder, gs="gs.json", gd="gd.json", extra=()):
    """``entangle check`` on the folder's files: (exit code, --json report)."""
    report = os.path.join(folder, "report.json")
    proc = subprocess.run(
        [ENTANGLE, "check", os.path.join(folder, gs), os.path.join(folder, gd), "--rel", os.path.join(folder, "ri.json"), "--json", report, *extra],
        capture_output=True,
        text=True,
        timeout=900,
    )
    if proc.returncode == 2 or not os.path.exists(report):
        raise AssertionError(f"entangle check exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
    with open(report, encoding="utf-8") as f:
        return proc.returncode, json.load(f), proc.stdout


def state_range(folder, gs, lo, hi):
    """Adds ``"in_range": [lo, hi]`` to the folder's relation entry of G_s tensor ``gs``, as a user
    states the range of ids; fails when no single entry names it."""
    ri = os.path.join(folder, "ri.json")
    with open(ri, encoding="utf-8") as f:
        relation = json.load(f)
    entries = [e for e in relation["relations"] if e["gs"] == gs]
    if len(entries) != 1:
        raise AssertionError(f"{len(entries)} relation entries name {gs}: {relation}")
    entries[0]["in_range"] = [lo, hi]
    with open(ri, "w", encoding="utf-8") as f:
        json.dump(relation, f)


class CaptureCase(unittest.TestCase):
    """Helpers: capture into a fresh folder and assert the checker's verdict."""

    def folder(self):
        d = tempfile.mkdtemp(prefix="entangle-capture-")
        self.addCleanup(lambda: subprocess.run(["rm", "-rf", d]))
        return d

    def assert_verdict(self, args, verdict, operator=None, target=None, env=None, as_process=False):
        d = self.folder()
        capture(args, d, env, as_process)
        if args[0] == "jax":  # the HLO modules as they are: check imports them
            code, report, text = check(d, "gs.hlo", "gd.hlo", ("--ranks", args[args.index("--world") + 1]))
        else:
            code, report, text = check(d)
        self.assertEqual(report["verdict"], verdict, text)
        self.assertEqual(code, {"refines": 0, "not-refined": 1, "expectation-violated": 1}.get(verdict, 3), text)
        if operator is not None:
            self.assertEqual(report["failure"]["operator"], operator, text)
        if target is not None:
            self.assertEqual(report["failure"]["target"], target, text)
        return report
