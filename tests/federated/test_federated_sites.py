#!/usr/bin/env python3
"""Federated jobs that must end on emulated sites (run_federated.sh: vcluster.sh --sites,
the WAN emulator, the parts started separately on each site's first host, gateway mode).
Each scenario checks the one report of the part where things went wrong, the report of the
other parts, the exit statuses, how long it took, and that nothing is left on any host
(run_federated.sh's own check). Skipped (77) where no cluster can be made.

Run: test_federated_sites.py --bin BUILD/bin --tests-bin BUILD/tests/bin --wanemu PATH
     [unittest args, e.g. -v Failure]
"""
import argparse
import os
import re
import subprocess
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
RUN = os.path.join(HERE, "run_federated.sh")
SKIP = 77
ARGS = None


class Run:
    def __init__(self, args, prog, timeout=90):
        argv = [RUN, "--wanemu", ARGS.wanemu] + list(args) + [
            ARGS.bin, os.path.join(ARGS.tests_bin, prog[0])] + list(prog[1:])
        t0 = time.monotonic()
        r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
        self.took = time.monotonic() - t0
        self.rc = r.returncode
        self.out = r.stdout + r.stderr
        if self.rc == SKIP and "[server]" not in self.out:
            raise unittest.SkipTest("no emulated cluster here: " + self.out.strip()[-200:])
        self.status = {m.group(1): int(m.group(2))
                       for m in re.finditer(r"^\[(s\d+|server)\] exit status (\d+)$", self.out,
                                            re.M)}

    def lines(self, who):
        return [l[len(who) + 3:] for l in self.out.splitlines() if l.startswith("[%s] " % who)]

    def reports(self, who):
        """mpirun's reports, without its launch progress lines (progress())."""
        return [l for l in self.lines(who) if l.startswith("mpirun: ") and l not in
                self.progress(who)]

    def progress(self, who):
        return [l for l in self.lines(who) if re.match(
            r"^mpirun: (site \S+ of job \S+: joined the rendezvous; waiting up to|"
            r"still waiting for \d+ of \d+ host)", l)]


class FederatedSitesTest(unittest.TestCase):
    def assert_clean(self, run):
        self.assertNotIn("[check] left behind", run.out, run.out)


class Missing(FederatedSitesTest):
    def test_site_never_arrives(self):
        """Site 3 of 3 is never started: the two waiting parts end within the server's
        timeout naming it; nothing was started anywhere."""
        r = Run(["--missing", "3", "--timeout", "4", "2,1/2/1"], ["test_sites"], timeout=60)
        self.assertEqual(r.status, {"s1": 1, "s2": 1, "server": 1}, r.out)
        for s in ("s1", "s2"):
            self.assertEqual(r.reports(s), [
                "mpirun: site %s of job federated: the rendezvous server at 10.0.1.1:7100 "
                "called the job off: site s3 did not join within 4 s; nothing was started" % s],
                r.out)
        self.assertIn("site s3 did not join within 4 s; job federated is called off", r.out)
        # launch progress: each part heard which sites the server still waited for
        self.assertRegex(r.progress("s2")[0], r"^mpirun: site s2 of job federated: joined the "
                                              r"rendezvous; waiting up to \d+ s for s3$")
        self.assertLess(r.took, 4 + 2 + 10)  # the timeout, the delay between starts, setup
        self.assert_clean(r)


class Failure(FederatedSitesTest):
    """A rank that fails at one site ends that part (its one report); the other parts learn
    it from their gateway, whose WAN link to that site is lost (or, when the failure came
    before the link was up, never opened: bounded by the gateways' 60 s connect time)."""

    def check_failure(self, r, bad, other, rank, cause):
        self.assertIn(bad, r.status, r.out)
        self.assertNotEqual(r.status[bad], 0, r.out)
        self.assertNotEqual(r.status.get(other, 0), 0, r.out)
        self.assertEqual(r.status["server"], 0, r.out)  # the rendezvous itself went well
        self.assertEqual(len(r.reports(bad)), 1, r.out)
        self.assertRegex(r.reports(bad)[0], r"^mpirun: rank %d \(pid \d+\) on host \S+-%sh\d "
                                            r"%s" % (rank, bad, cause))
        self.assertEqual(len(r.reports(other)), 1, r.out)
        link = r"the WAN link to site %s \(10\.0\.%s\.1:7000\)" % (bad, bad[1:])
        self.assertRegex(r.reports(other)[0],
                         r"^mpirun: host \S+-%sh1: gateway of site %s: (%s failed|%s was not "
                         r"opened within 60 s|cannot open %s)" % (other, other, link, link, link))
        self.assert_clean(r)

    def test_rank_dies_mid_run(self):
        """After an exchange across the WAN, the rank of the second site kills itself while
        the first site's rank waits for it: both parts end within seconds."""
        r = Run(["1/1"], ["tcp_victim", "die"])
        self.check_failure(r, "s2", "s1", 1, r"was killed by signal 9 \(Killed\)$")
        self.assertEqual(r.status["s2"], 128 + 9)
        self.assertRegex(r.reports("s1")[0], r"the WAN link to site s2 \(10\.0\.2\.1:7000\) "
                                            r"failed")
        self.assertLess(r.took, 30)

    def test_rank_killed_at_first_site_at_once(self):
        """Right after MPI_Init a rank of the first site (whose gateway opens the links) is
        killed; the second part, started first, ends too."""
        r = Run(["--reverse", "2x2x2"], ["lt_prog", "kill", "2"], timeout=150)
        self.check_failure(r, "s1", "s2", 2, r"was killed by signal 9 \(Killed\)$")

    def test_rank_exits_without_finalize(self):
        r = Run(["2x2x2"], ["lt_prog", "exit", "6", "3"], timeout=150)
        self.check_failure(r, "s2", "s1", 6, r"exited with code 3 without calling MPI_Finalize$")
        self.assertEqual(r.status["s2"], 3)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--tests-bin", required=True)
    ap.add_argument("--wanemu", required=True)
    global ARGS
    ARGS, rest = ap.parse_known_args()
    if os.geteuid() != 0:
        print("skipped: emulated sites need root")
        sys.exit(SKIP)
    prog = unittest.main(argv=[sys.argv[0]] + rest, exit=False)
    r = prog.result
    if r.testsRun and len(r.skipped) == r.testsRun:
        sys.exit(SKIP)
    sys.exit(0 if r.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
