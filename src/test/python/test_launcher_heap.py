"""The launcher's heap (scripts/entangle): inputs of more than 64 MB together start the heap at
eight times their size, at most a quarter of the memory, so that reading a deep model's graphs
does not grow the heap one full collection at a time; small inputs keep the JVM's own start, and
JAVA_OPTS that size the heap are left alone. The JVM says its initial heap (-Xlog:gc+init)."""

import os
import re
import subprocess
import tempfile
import unittest

from support import EXAMPLES, LAUNCHER

TIMEOUT = int(os.environ.get("ENTANGLE_TEST_TIMEOUT", "900"))
CASE = os.path.join(EXAMPLES, "fig1-matmul")


def memory_mb():
    with open("/proc/meminfo", encoding="utf-8") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) // 1024
    raise AssertionError("no MemTotal in /proc/meminfo")


@unittest.skipUnless(os.path.isfile("/proc/meminfo"), "the launcher sizes the heap from /proc/meminfo")
class LauncherHeapTest(unittest.TestCase):
    def initial_heap_mb(self, args, java_opts=""):
        env = {k: v for k, v in os.environ.items() if k != "JAVA_OPTS"}
        env["JAVA_OPTS"] = (java_opts + " -Xlog:gc+init").strip()
        run = subprocess.run([LAUNCHER, *args], env=env, capture_output=True, text=True,
                             stdin=subprocess.DEVNULL, timeout=TIMEOUT, check=False)
        found = re.search(r"Heap Initial Capacity: (\d+)M", run.stdout + run.stderr)
        self.assertIsNotNone(found, run.stdout + run.stderr)
        return int(found.group(1))

    def check_args(self, gd):
        return ["check", os.path.join(CASE, "gs.json"), gd, "--rel", os.path.join(CASE, "ri.json")]

    def test_a_large_input_starts_the_heap_at_eight_times_its_size(self):
        with tempfile.TemporaryDirectory() as d:
            big = os.path.join(d, "gd.json")
            with open(big, "wb") as f:
                f.truncate(100 << 20)  # not JSON: the check fails, after the JVM has started
            others = sum(os.path.getsize(os.path.join(CASE, f)) for f in ("gs.json", "ri.json"))
            inputs = 100 + others / 2**20
            self.assertEqual(min(int(inputs * 8), memory_mb() // 4),
                             self.initial_heap_mb(self.check_args(big)))
            self.assertEqual(64, self.initial_heap_mb(self.check_args(big), "-Xms64m"),
                             "JAVA_OPTS sizes the heap")

    def test_small_inputs_keep_the_jvms_own_start(self):
        own = self.initial_heap_mb(["--version"])
        self.assertEqual(own, self.initial_heap_mb(self.check_args(os.path.join(CASE, "gd.json"))))


if __name__ == "__main__":
    unittest.main()
