#!/usr/bin/env python3
"""Launch progress: mpirun names the hosts (and sites) it is still waiting for.

  Hosts   three "hosts" of this machine (helpers started through slow_agent.sh, no root), two
          slow to start: after 2 s and every 5 s one line names them, then the job runs
          normally; with fast hosts nothing is said
  Sites   two emulated sites (run_on_sites.sh, root and namespaces; else skipped), a host of
          the second slow: the line names the host and its site
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import unittest

A = None


def run(args, env=None, timeout=60):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=e)


class Hosts(unittest.TestCase):
    def job(self, slow, seconds="3"):
        return run([A.mpirun, "--bind-to", "none", "--host", "fastA:1,slowB:1,slowC:1",
                    "--launch-agent", A.agent + " {host}", "-n", "3", A.prog],
                   env={"SLOW_HOSTS": slow, "SLOW_SECONDS": seconds})

    def test_repeated_and_several(self):
        r = self.job("slowB slowC", seconds="8")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = [l for l in r.stderr.splitlines() if "still waiting" in l]
        self.assertEqual(len(lines), 2, r.stderr)  # at 2 s and 7 s
        self.assertEqual(lines[0], "mpirun: still waiting for 2 of 3 hosts to start (2 s): "
                                   "slowB, slowC")
        self.assertRegex(lines[1], r"^mpirun: still waiting for 2 of 3 hosts to start \(7 s\): "
                                   r"slowB, slowC$")

    def test_fast_hosts_quiet(self):
        r = self.job("")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("still waiting", r.stderr)


class Sites(unittest.TestCase):
    def test_slow_site_host(self):
        with tempfile.TemporaryDirectory() as d:
            wrapper = os.path.join(d, "mpirun")
            with open(wrapper, "w") as f:
                f.write('#!/bin/sh\nexec "%s" "$@"\n' % A.mpirun)
            os.chmod(wrapper, 0o755)
            r = run([A.run_on_sites, "--wanemu", A.wanemu, "--wan-mode", "gateways",
                     "--mpirun-arg", "--launch-agent",
                     "--mpirun-arg", A.agent + " {host} ip netns exec {host}",
                     "1/1", wrapper, A.prog], env={"SLOW_SECONDS": "3", "SLOW_HOSTS": "*s2h1"},
                    timeout=80)
        if r.returncode == 77:
            raise unittest.SkipTest("no emulated sites here")
        self.assertEqual(r.returncode, 0, r.stderr)
        m = re.search(r"^mpirun: still waiting for 1 of 2 hosts to start \(2 s\): "
                      r"(\S+) \(site s2\)$", r.stderr, re.M)
        self.assertTrue(m, r.stderr)


def main():
    global A
    p = argparse.ArgumentParser()
    for o in ("mpirun", "prog", "agent", "run-on-sites", "wanemu"):
        p.add_argument("--" + o, required=True)
    A, rest = p.parse_known_args()
    prog = unittest.main(argv=[sys.argv[0]] + rest, exit=False)
    res = prog.result
    if res.wasSuccessful() and res.testsRun and len(res.skipped) == res.testsRun:
        sys.exit(77)
    sys.exit(0 if res.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
