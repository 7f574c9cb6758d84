#!/usr/bin/env python3
"""mpirun's side of process creation (docs/dynproc.md), driven by pmi_spawn_rank.py: a
spawn request over PMI starts a new part of the job with its own space, job-wide numbers
after the ranks before it, the pairs the request preput, and gets across parts; bad requests
are answered, not hung; a spawned rank's failure ends the job with the usual report.

Usage: test_pmi_spawn.py --mpirun PATH [unittest args]
"""
import argparse
import os
import re
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
RANK = os.path.join(HERE, "pmi_spawn_rank.py")
MPIRUN = None


def run(np, scenario, nchild, timeout=30):
    cmd = [MPIRUN, "--bind-to", "none", "-n", str(np), sys.executable, RANK, "parent",
           scenario, str(nchild)]
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=timeout)


class Spawn(unittest.TestCase):
    def test_basic(self):
        for np in (1, 2, 3, 4):
            for nchild in (1, 3):
                with self.subTest(np=np, nchild=nchild):
                    p = run(np, "basic", nchild)
                    self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
                    self.assertNotIn("FAIL", p.stdout)
                    self.assertIn("ok parent saw %d children" % nchild, p.stdout)
                    for c in range(nchild):
                        self.assertRegex(p.stdout, r"ok child %d of %d base %d parent kvs_\S+ "
                                         r"rank 0" % (c, nchild, np))

    def test_multiple_apps_appnum_wdir(self):
        p = run(2, "multiple", 2)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("ok child 0 appnum 0", p.stdout)
        self.assertIn("ok child 1 appnum 1", p.stdout)
        self.assertIn("ok child 2 appnum 1", p.stdout)

    def test_refused_requests_are_answered(self):
        p = run(2, "missing", 0)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("cannot execute '/nonexistent/metampi-prog': No such file", p.stdout)
        self.assertIn("host 'no-such-host' is not a host of this job", p.stdout)

    def test_nested_spawn(self):
        p = run(1, "nested", 1)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("ok child spawned", p.stdout)
        self.assertRegex(p.stdout, r"ok grandchild of kvs_\S+\.s1")

    def test_child_failure_ends_the_job(self):
        p = run(2, "childfails", 3)
        self.assertEqual(p.returncode, 5, p.stdout + p.stderr)
        # the last child is rank 2 of its part, rank 2 + 2 of the job
        self.assertRegex(p.stderr, r"mpirun: rank 4 \(pid \d+\) on host \S+ exited with code 5")

    def test_malformed_request_is_an_invalid_command(self):
        p = run(1, "malformed", 0)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("sent an invalid PMI command: cmd=spawn_arg", p.stderr)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpirun", required=True)
    args, rest = ap.parse_known_args()
    MPIRUN = args.mpirun
    unittest.main(argv=[sys.argv[0]] + rest)
