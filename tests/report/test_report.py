#!/usr/bin/env python3
"""mpirun --report and --report-file (docs/report.md).

The program (progs/report_ring.c) sends, in each of ROUNDS rounds, (rank + 1) * 1000 bytes
from every rank to the next one: the report's numbers are known exactly. Classes:
  Local   one host at 1, 2, 4 ranks: levels, rank matrix, table on stderr only with --report
  Errors  a --report-file that cannot be written fails before any rank starts; a program that
          never calls MPI_Finalize (or no MPI program) is reported as such
  Hosts   two emulated hosts (run_on_hosts.sh 2x2): the reports cross the helpers' channel
  Sites   two emulated sites through the gateways (run_on_sites.sh --wan-mode gateways 2x1x2):
          site matrix, WAN wait time, the gateways' counters
  Federated  two sites started separately (run_federated.sh 2/2, root): each site's mpirun
          reports its own site's ranks, their WAN waits and its gateway's link
  Plot    examples/report/plot_report.py draws a PNG from the file (skipped without
          matplotlib for /usr/bin/python3)
Hosts and Sites need root and network namespaces; without them they are skipped (77).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import unittest

A = None
ROUNDS = 3


def expected_pair(size, r):
    """(to, messages, bytes) of rank r's traffic in the ring."""
    return (r + 1) % size, ROUNDS, ROUNDS * (r + 1) * 1000


def run(args, timeout=60, **kw):
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, **kw)


class Local(unittest.TestCase):
    def check_json(self, rep, size):
        self.assertEqual(rep["format"], "metampi-report")
        self.assertEqual(rep["ranks"], size)
        self.assertEqual(rep["reported"], list(range(size)))
        total = sum(ROUNDS * (r + 1) * 1000 for r in range(size))
        level = "self" if size == 1 else "shm"
        self.assertEqual(rep["levels"][level], {"messages": ROUNDS * size, "bytes": total})
        for other in {"self", "shm", "tcp", "wan"} - {level}:
            self.assertEqual(rep["levels"][other]["messages"], 0, other)
        for r in range(size):
            to, m, b = expected_pair(size, r)
            for t in range(size):
                want = {"messages": m, "bytes": b} if t == to else {"messages": 0, "bytes": 0}
                self.assertEqual(rep["rank_matrix"][r][t], want, (r, t))
        self.assertEqual(rep["site_matrix"], [[{"messages": ROUNDS * size, "bytes": total}]])
        self.assertEqual(rep["top_pairs"][0]["from"], size - 1)
        self.assertEqual(rep["gateways"], [])
        for d in rep["rank_detail"]:
            self.assertEqual(set(d["wait_s"]), {"self", "shm", "tcp", "wan", "none"})

    def test_sizes(self):
        for size in (1, 2, 4):
            with self.subTest(size=size), tempfile.TemporaryDirectory() as d:
                path = os.path.join(d, "r.json")
                r = run([A.mpirun, "--bind-to", "none", "-n", str(size), "--report",
                         "--report-file", path, A.prog, str(ROUNDS)])
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertIn("mpirun --report: traffic of %d of %d ranks" % (size, size),
                              r.stderr)
                self.assertIn("rank to rank", r.stderr)
                with open(path) as f:
                    self.check_json(json.load(f), size)

    def test_file_only_prints_nothing(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            r = run([A.mpirun, "--bind-to", "none", "-n", "2", "--report-file=" + path, A.prog])
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertNotIn("mpirun --report", r.stderr)
            with open(path) as f:
                self.check_json(json.load(f), 2)

    def test_without_report_no_variable(self):
        """Without --report the ranks get no METAMPI_REPORT (nothing is counted per peer)."""
        r = run([A.mpirun, "-n", "1", "sh", "-c", "echo ${METAMPI_REPORT:-unset}"])
        self.assertEqual(r.stdout.strip(), "unset")
        r = run([A.mpirun, "-n", "1", "--report", "sh", "-c", "echo ${METAMPI_REPORT:-unset}"])
        self.assertEqual(r.stdout.strip(), "1")


class Errors(unittest.TestCase):
    def test_bad_path_fails_before_start(self):
        with tempfile.TemporaryDirectory() as d:
            marker = os.path.join(d, "started")
            bad = os.path.join(d, "no", "such", "dir", "r.json")
            r = run([A.mpirun, "-n", "2", "--report-file", bad, "touch", marker])
            self.assertEqual(r.returncode, 1)
            self.assertIn("mpirun: --report-file: cannot write '%s': No such file or directory"
                          % bad, r.stderr)
            self.assertFalse(os.path.exists(marker), "a rank started")

    def test_directory_path(self):
        with tempfile.TemporaryDirectory() as d:
            r = run([A.mpirun, "--report-file", d, "true"])
            self.assertEqual(r.returncode, 1)
            self.assertIn("--report-file: cannot write", r.stderr)

    def test_missing_value(self):
        r = run([A.mpirun, "--report-file"])
        self.assertEqual(r.returncode, 1)
        self.assertIn("option --report-file requires a file name", r.stderr)
        r = run([A.mpirun, "--report-file", "a.json", "--report-file", "b.json", "true"])
        self.assertEqual(r.returncode, 1)
        self.assertIn("--report-file given twice", r.stderr)

    def test_no_mpi_program(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            r = run([A.mpirun, "-n", "2", "--report", "--report-file", path, "true"])
            self.assertEqual(r.returncode, 0)
            self.assertIn("--report: no rank reported its traffic (did the program call "
                          "MPI_Finalize?)", r.stderr)
            with open(path) as f:
                rep = json.load(f)
            self.assertEqual(rep["reported"], [])


class Plot(unittest.TestCase):
    def test_png(self):
        py = "/usr/bin/python3"
        if run([py, "-c", "import matplotlib"]).returncode != 0:
            raise unittest.SkipTest("no matplotlib for %s (python3-matplotlib)" % py)
        with tempfile.TemporaryDirectory() as d:
            path, png = os.path.join(d, "r.json"), os.path.join(d, "r.png")
            r = run([A.mpirun, "--bind-to", "none", "-n", "3", "--report-file", path, A.prog])
            self.assertEqual(r.returncode, 0, r.stderr)
            r = run([py, A.plot, path, png])
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(png, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
            with open(path, "w") as f:
                f.write("{}")
            r = run([py, A.plot, path, png])
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("is not a metampi report", r.stderr)


def cluster_run(script_args, extra):
    """Runs script_args with an mpirun that adds extra; SkipTest when no cluster here."""
    with tempfile.TemporaryDirectory() as d:
        wrapper = os.path.join(d, "mpirun")
        with open(wrapper, "w") as f:
            f.write('#!/bin/sh\nexec "%s" %s "$@"\n' % (A.mpirun, " ".join(extra)))
        os.chmod(wrapper, 0o755)
        args = [a if a != "MPIRUN" else wrapper for a in script_args]
        r = run(args, timeout=80)
    if r.returncode == 77:
        raise unittest.SkipTest("no emulated cluster here: " + r.stderr.strip()[-200:])
    return r


class Hosts(unittest.TestCase):
    def test_two_hosts(self):
        with tempfile.TemporaryDirectory() as d:
            os.chmod(d, 0o755)
            path = os.path.join(d, "r.json")
            r = cluster_run([A.run_on_hosts, "2x2", "MPIRUN", A.prog, str(ROUNDS)],
                            ["--report", "--report-file", path])
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(path) as f:
                rep = json.load(f)
        self.assertEqual(rep["reported"], [0, 1, 2, 3])
        # ranks 0,1 on h1 and 2,3 on h2: 1->2 and 3->0 cross hosts
        self.assertEqual(rep["levels"]["tcp"], {"messages": 2 * ROUNDS,
                                                "bytes": ROUNDS * (2000 + 4000)})
        self.assertEqual(rep["levels"]["shm"], {"messages": 2 * ROUNDS,
                                                "bytes": ROUNDS * (1000 + 3000)})
        self.assertIn("TCP (other host, same site)", r.stderr)


class Sites(unittest.TestCase):
    def test_two_sites_gateways(self):
        with tempfile.TemporaryDirectory() as d:
            os.chmod(d, 0o755)
            path = os.path.join(d, "r.json")
            r = cluster_run([A.run_on_sites, "--wanemu", A.wanemu, "--wan-mode", "gateways",
                             "2x1x2", "MPIRUN", A.prog, "5"],
                            ["--report", "--report-file", path])
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(path) as f:
                rep = json.load(f)
        self.assertEqual(rep["sites"], ["s1", "s2"])
        # ranks 0,1 at s1, 2,3 at s2: 1->2 and 3->0 cross the WAN, 5 rounds
        self.assertEqual(rep["levels"]["wan"], {"messages": 10, "bytes": 5 * (2000 + 4000)})
        sm = rep["site_matrix"]
        self.assertEqual(sm[0][1], {"messages": 5, "bytes": 10000})
        self.assertEqual(sm[1][0], {"messages": 5, "bytes": 20000})
        self.assertEqual(sm[0][0], {"messages": 5, "bytes": 5000})
        # the WAN adds 5 ms each way: the ranks that receive from the other site wait on it
        wan_wait = sum(x["wait_s"]["wan"] for x in rep["rank_detail"])
        self.assertGreater(wan_wait, 0.005)
        links = {(g["site"], g["to"]): g for g in rep["gateways"]}
        self.assertEqual(set(links), {("s1", "s2"), ("s2", "s1")})
        for g in links.values():
            self.assertGreater(g["wan_frames"], 0)
            self.assertGreaterEqual(g["raw_bytes"], g["wan_bytes"] * 0.99)
        # zeros compress: the 4000-byte messages of s2 -> s1 go smaller over the WAN
        self.assertGreater(links[("s2", "s1")]["compression_ratio"], 1.5)
        self.assertIn("waiting on the WAN:", r.stderr)
        self.assertIn("gateways: WAN links", r.stderr)


class Federated(unittest.TestCase):
    def test_each_part_reports_its_site(self):
        r = run([A.run_federated, "--wanemu", A.wanemu, "--delay", "0.5", "2/2",
                 os.path.dirname(A.mpirun), "--report", A.prog, "5"], timeout=80)
        if r.returncode == 77:
            raise unittest.SkipTest("no emulated sites here")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        out = r.stdout + r.stderr
        for site, other in (("s1", "s2"), ("s2", "s1")):
            lines = [l[5:] for l in out.splitlines() if l.startswith("[%s] " % site)]
            text = "\n".join(lines)
            self.assertIn("mpirun --report: traffic of 2 of 4 ranks (2 sites)", text, out)
            self.assertIn("waiting on the WAN:", text)
            links = [l.split() for l in lines if l.startswith("  %s " % site)]
            self.assertTrue(any(f[1] == other for f in links), text)
            # its ranks' WAN traffic: 1->2 (s1 -> s2, 2000 bytes) or 3->0 (4000 bytes) 5 times,
            # and its leader's architecture summary to the other site's leader in MPI_Init
            # (core/federated_arch.c: a part knows only its own ranks' architectures)
            wan = [l for l in lines if l.startswith("  WAN (other site)")][0].split()
            self.assertEqual(wan[3], "6", text)


def main():
    global A
    p = argparse.ArgumentParser()
    for o in ("mpirun", "prog", "run-on-hosts", "run-on-sites", "run-federated", "wanemu",
              "plot"):
        p.add_argument("--" + o, required=True)
    A, rest = p.parse_known_args()
    prog = unittest.main(argv=[sys.argv[0]] + rest, exit=False)
    res = prog.result
    if res.wasSuccessful() and res.testsRun and len(res.skipped) == res.testsRun:
        sys.exit(77)
    sys.exit(0 if res.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
