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


def has_module(name):
    try:
        __import__(name)
        return True
    except ImportError:
        return False


def capture(args, folder, env=None):
    """Runs ``python -m entangle_capture ARGS -o FOLDER``; fails the test with its stderr.

    A torch capture runs the command's ``main`` in this process (torch is imported once for all
    the tests, and the ranks are forked from one server that has it; test_cli runs the command
    as a process). A JAX capture needs a process of its own: the number of devices is fixed when
    JAX starts."""
    if args[0] == "torch" and not env:
        return _capture_here(args, folder)
    proc = subprocess.run(
        [sys.executable, "-m", "entangle_capture", *args, "-o", folder],
        cwd=PACKAGE_ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=600,
    )
    if proc.returncode != 0:
        raise AssertionError(f"capture {' '.join(args)} exited {proc.returncode}:\n{proc.stderr}")
    return proc


def _capture_here(args, folder):
    if PACKAGE_ROOT not in sys.path:
        sys.path.insert(0, PACKAGE_ROOT)
    from entangle_capture.__main__ import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([*args, "-o", folder])
    if code != 0:
        raise AssertionError(f"capture {' '.join(args)} exited {code}:\n{err.getvalue()}")
    return out.getvalue()


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


class CaptureCase(unittest.TestCase):
    """Helpers: capture into a fresh folder and assert the checker's verdict."""

    def folder(self):
        d = tempfile.mkdtemp(prefix="entangle-capture-")
        self.addCleanup(lambda: subprocess.run(["rm", "-rf", d]))
        return d

    def assert_verdict(self, args, verdict, operator=None, target=None, env=None):
        d = self.folder()
        capture(args, d, env)
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
