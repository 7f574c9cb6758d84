#!/usr/bin/env python3
"""Tests of run_on_sites.sh, the harness that runs MPI programs on emulated sites.

Run: test_run_on_sites.py --mpirun PATH --wanemu PATH [unittest args, e.g. -v Describe]
Describe needs nothing; Run needs emulated sites (root, namespaces, TUN) and makes the
whole run exit 77 when `vcluster.sh --check --sites 2` says they cannot be made here.
"""
import argparse
import os
import re
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "run_on_sites.sh")
VCLUSTER = os.path.join(HERE, "vcluster.sh")
MPIRUN = WANEMU = None
SKIP = 77


def run(args, timeout=120, env=None):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([SCRIPT] + args, capture_output=True, text=True, timeout=timeout,
                          env=e)


class Describe(unittest.TestCase):
    """The description written for a layout, and bad layouts."""

    def test_even(self):
        r = run(["--describe", "2x2x2", "vc1-"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, """; run_on_sites.sh 2x2x2: 2 sites, 8 ranks

[site s1]
hosts =
    vc1-s1h1:2
    vc1-s1h2:2
gateway = vc1-s1h1
wan = 10.0.1.1:7000

[site s2]
hosts =
    vc1-s2h1:2
    vc1-s2h2:2
gateway = vc1-s2h1
wan = 10.0.2.1:7000
""")

    def test_ipv6(self):
        r = run(["--describe", "2x1x1", "vc1-", "only,no"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(re.findall(r"^wan = (\S+)$", r.stdout, re.M),
                         ["[fd00:0:0:1::1]:7000", "10.0.2.1:7000"])

    def test_uneven(self):
        r = run(["--describe", "2,1/2/1"])
        self.assertEqual(r.returncode, 0, r.stderr)
        sites = re.findall(r"^\[site (\S+)\]$", r.stdout, re.M)
        hosts = re.findall(r"^    (\S+)$", r.stdout, re.M)
        wans = re.findall(r"^wan = (\S+)$", r.stdout, re.M)
        self.assertEqual(sites, ["s1", "s2", "s3"])
        self.assertEqual(hosts, ["P-s1h1:2", "P-s1h2:1", "P-s2h1:2", "P-s3h1:1"])
        # each site's gateway is its first host: vcluster.sh's address of it (2 hosts a site)
        self.assertEqual(wans, ["10.0.1.1:7000", "10.0.2.1:7000", "10.0.3.1:7000"])
        self.assertIn("3 sites, 6 ranks", r.stdout)

    def test_bad_layouts(self):
        for bad in ("", "2x2", "0x2x2", "2x2x0", "2,1//2", "/2", "2/", "2,,1", "a", "2x2x2x2",
                    "251x1x1", "1x254x1"):
            r = run(["--describe", bad])
            self.assertEqual(r.returncode, 2, (bad, r.stdout))
            self.assertRegex(r.stderr.splitlines()[0], r"^run_on_sites\.sh: (bad layout|layout)")
        r = run(["2x2x2", "mpirun"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("expected LAYOUT MPIRUN PROGRAM", r.stderr)
        r = run(["--wan-mode", "relay", "2x2x2", "mpirun", "true"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("--wan-mode takes direct or gateways", r.stderr)


class Run(unittest.TestCase):
    """Real runs: placement, environment, and the mpirun arguments passed on."""

    def sites(self, args, np):
        """Runs sh printing rank, host and EXPECT_SITE_SIZES; returns {rank: (host, sizes)}."""
        r = run(["--wanemu", WANEMU] + args + [
            MPIRUN, "sh", "-c", 'echo "at $PMI_RANK $METAMPI_HOSTNAME $EXPECT_SITE_SIZES"'])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        got = {int(rk): (h, s) for rk, h, s in re.findall(r"at (\d+) (\S+) (\S+)$", r.stdout,
                                                         re.M)}
        self.assertEqual(sorted(got), list(range(np)), r.stdout)
        return got, r.stdout

    def test_uneven_placement(self):
        got, _ = self.sites(["2,1/2/1"], 6)
        hosts = [re.sub(r"^.*-(s\d+h\d+)$", r"\1", got[r][0]) for r in range(6)]
        self.assertEqual(hosts, ["s1h1", "s1h1", "s1h2", "s2h1", "s2h1", "s3h1"])
        self.assertEqual({s for _, s in got.values()}, {"3,2,1"})

    def test_mpirun_args_passed_on(self):
        got, out = self.sites(["--mpirun-arg", "--tag-output", "2x1x1"], 2)
        self.assertRegex(out, r"(?m)^\[1,0\]<stdout>:at 0 \S+-s1h1 1,1$")
        self.assertRegex(out, r"(?m)^\[1,1\]<stdout>:at 1 \S+-s2h1 1,1$")

    def test_gateway_mode(self):
        # without --direct-wan, the site gateways run beside the ranks; a program that never
        # calls MPI_Init ends the job all the same (the gateways end when every rank has)
        r = run(["--wanemu", WANEMU, "--wan-mode", "gateways", "2x1x1", MPIRUN, "true"])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(r.stderr, "")


def main():
    global MPIRUN, WANEMU
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("--mpirun", required=True)
    ap.add_argument("--wanemu", required=True)
    args, rest = ap.parse_known_args()
    MPIRUN = os.path.abspath(args.mpirun)
    WANEMU = os.path.abspath(args.wanemu)
    if any(a.startswith("Run") for a in rest):
        check = subprocess.run([VCLUSTER, "--check", "--sites", "2", "--wanemu", WANEMU],
                               capture_output=True, text=True)
        if check.returncode != 0:
            print("SKIP: emulated sites cannot be made here: %s" % check.stdout.strip())
            sys.exit(SKIP)
    prog = unittest.main(argv=[sys.argv[0]] + rest, exit=False)
    sys.exit(0 if prog.result.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
