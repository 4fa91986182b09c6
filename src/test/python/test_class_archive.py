"""The class-data-sharing archive (scripts/class-archive) and the launcher's use of it.

Each test works in a scratch copy of the checkout's layout (scripts/, lemmas/, two examples and
target/entangle.jar, no sources), so the archive of the checkout itself is left alone. The archive
must hold entangle's classes, change nothing a check prints, and never stop a check: when it
cannot be made the script says why and exits 0, and the launcher runs without it.
"""

import os
import shutil
import subprocess
import tempfile
import time
import unittest

from support import EXAMPLES, JVM, LAUNCHER, ROOT

JAR = os.path.join(ROOT, "target", "entangle.jar")
TIMEOUT = int(os.environ.get("ENTANGLE_TEST_TIMEOUT", "900"))
CASE = "fig1-matmul"


def run(command, env=None, cwd=None):
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=TIMEOUT, check=False)


class ClassArchiveTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        built = run([LAUNCHER, "--version"], cwd=ROOT)
        if built.returncode != 0 or not os.path.isfile(JAR):
            raise AssertionError(f"could not build {JAR}: {built.stderr}")

    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="entangle-archive-")
        self.addCleanup(shutil.rmtree, self.root, ignore_errors=True)
        shutil.copytree(os.path.join(ROOT, "scripts"), os.path.join(self.root, "scripts"))
        shutil.copytree(os.path.join(ROOT, "lemmas"), os.path.join(self.root, "lemmas"))
        os.makedirs(os.path.join(self.root, "target"))
        shutil.copy2(JAR, os.path.join(self.root, "target", "entangle.jar"))
        self.case = os.path.join(self.root, "examples", CASE)
        shutil.copytree(os.path.join(EXAMPLES, CASE), self.case)
        self.jar = os.path.join(self.root, "target", "entangle.jar")
        self.archive = os.path.join(self.root, "target", "entangle.jsa")
        self.failed = os.path.join(self.root, "target", "class-archive.failed")
        self.env = {k: v for k, v in os.environ.items() if k != "JAVA_OPTS"}

    def make(self, *cases):
        made = run(["bash", os.path.join(self.root, "scripts", "class-archive"), *cases], env=self.env)
        self.assertEqual(0, made.returncode, made.stdout + made.stderr)
        return made

    def check(self, java_opts=""):
        env = dict(self.env, JAVA_OPTS=java_opts)
        files = [os.path.join(self.case, f) for f in ("gs.json", "gd.json", "ri.json")]
        return run([os.path.join(self.root, "scripts", "entangle"), "check", files[0], files[1],
                    "--rel", files[2]], env=env)

    def test_the_archive_holds_entangles_classes_and_changes_no_output(self):
        made = self.make(self.case)
        self.assertTrue(os.path.isfile(self.archive), made.stdout + made.stderr)
        self.assertGreater(os.path.getmtime(self.archive), os.path.getmtime(self.jar))
        self.assertFalse(os.path.exists(self.failed))
        files = [os.path.join(self.case, f) for f in ("gs.json", "gd.json", "ri.json")]
        loaded = run(JVM + ["-Xshare:on", f"-XX:SharedArchiveFile={self.archive}",
                            "-Xlog:class+load", f"-Dentangle.home={self.root}", "-jar", self.jar,
                            "check", files[0], files[1], "--rel", files[2]])
        self.assertEqual(0, loaded.returncode, loaded.stderr)
        ours = [line for line in loaded.stdout.splitlines() if " dev.entangle." in line]
        shared = [line for line in ours if "source: shared objects file" in line]
        self.assertTrue(ours, loaded.stdout[-2000:])
        self.assertGreater(len(shared), 0.9 * len(ours),
                           f"{len(shared)} of {len(ours)} entangle classes came from the archive")

        with_archive, without = self.check(), self.check("-Xshare:off")
        self.assertEqual(0, with_archive.returncode, with_archive.stderr)
        self.assertEqual("", with_archive.stderr)
        timing = lambda out: [l for l in out.splitlines() if not l.startswith("checked ")]
        self.assertEqual(timing(without.stdout), timing(with_archive.stdout))
        self.assertIn("refines", with_archive.stdout)

    def test_the_launcher_makes_a_missing_or_stale_archive_once(self):
        first = self.check()
        self.assertEqual(0, first.returncode, first.stderr)
        self.assertIn("making the class archive", first.stderr)
        self.assertTrue(os.path.isfile(self.archive), first.stderr)
        second = self.check()
        self.assertEqual(0, second.returncode, second.stderr)
        self.assertEqual("", second.stderr)
        earlier = os.path.getmtime(self.jar) - 10
        os.utime(self.archive, (earlier, earlier))  # older than the jar: stale
        self.assertIn("making the class archive", self.check().stderr)
        self.assertGreater(os.path.getmtime(self.archive), os.path.getmtime(self.jar))

    def test_an_archive_that_cannot_be_made_stops_nothing(self):
        missing = os.path.join(self.root, "no-such-case")
        made = self.make(missing)
        self.assertIn("no class archive", made.stderr)
        self.assertIn("no-such-case", made.stderr)
        self.assertFalse(os.path.exists(self.archive))
        self.assertTrue(os.path.isfile(self.failed))
        # the launcher does not try again for this jar, and runs without an archive
        checked = self.check()
        self.assertEqual(0, checked.returncode, checked.stderr)
        self.assertEqual("", checked.stderr)
        self.assertFalse(os.path.exists(self.archive))

    def test_an_archive_of_another_jar_is_ignored(self):
        self.make(self.case)
        now = time.time()
        os.utime(self.jar, (now - 10, now - 10))  # the jar the archive was made from has changed
        os.utime(self.archive, (now, now))  # yet the archive looks newer: the launcher passes it on
        checked = self.check()
        self.assertEqual(0, checked.returncode, checked.stderr)
        self.assertEqual("", checked.stderr)
        self.assertIn("refines", checked.stdout)


if __name__ == "__main__":
    unittest.main()
