#!/usr/bin/env python3
"""Tests of the WAN benchmarks' machinery (bench/metabench/wan/) that need no namespaces and
no timing (ctest bench.wan.machinery): process.run_job (a job that hangs after its results,
one that times out, one that exits), the lower bounds of the WAN check, raw_tcp's schedule as
the runner mirrors it and its new arguments, coll_latency's factor between sizes, and the
target verdicts on made-up results.

    test_wan.py --build BUILD [unittest options]
"""
import argparse
import os
import re
import socket
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from metabench import limits, process  # noqa: E402  (after the path)
from metabench.wan import measure as wm  # noqa: E402
from metabench.wan import targets as wt  # noqa: E402

BUILD = None


def run_job(cmd, timeout, done):
    """process.run_job as the WAN rounds call it."""
    return process.run_job(cmd, timeout, done, wm.GRACE)


class RunJob(unittest.TestCase):
    def test_exits(self):
        status, out, err, _, hung = run_job(["sh", "-c", "echo one; echo two >&2"], 20,
                                               lambda o: False)
        self.assertEqual((status, out, err, hung), (0, "one\n", "two\n", False))

    def test_hangs_after_its_results(self):
        # the results are kept and the job ends GRACE s after them, long before the timeout
        status, out, err, seconds, hung = run_job(
            ["sh", "-c", "echo 'size 8 done'; exec sleep 100"], 60,
            lambda o: re.search(r"^size 8 ", o, re.M) is not None)
        self.assertEqual((status, out, hung), (124, "size 8 done\n", True))
        self.assertLess(seconds, 30)
        self.assertIn("after its results", err)

    def test_times_out(self):
        status, out, err, _, hung = run_job(["sh", "-c", "echo partial; exec sleep 100"], 2,
                                               lambda o: False)
        self.assertEqual((status, out, hung), (124, "partial\n", False))
        self.assertTrue(err.startswith("timed out after 2 s"), err)

    def test_a_descendant_holding_the_pipes_does_not_hold_the_runner(self):
        # the job exits; a process of another session keeps its stdout open
        status, out, _, seconds, _ = run_job(
            ["sh", "-c", "setsid sleep 30 & echo gone"], 20, lambda o: False)
        self.assertEqual((status, out), (0, "gone\n"))
        self.assertLess(seconds, 15)

    def test_cannot_start(self):
        status, _, err, _, hung = run_job(["/nonexistent/prog"], 5, lambda o: False)
        self.assertEqual((status, hung), (127, False))
        self.assertIn("nonexistent", err)


class Bounds(unittest.TestCase):
    def test_collectives(self):
        counts = {4: 10, 32: 5}
        self.assertEqual(wm.coll_bound("barrier", {0: 7}), (0, 14))
        self.assertEqual(wm.coll_bound("bcast", counts), (4 * 10 + 32 * 5, 15))
        self.assertEqual(wm.coll_bound("allreduce", counts), (2 * (4 * 10 + 32 * 5), 30))
        self.assertEqual(wm.coll_bound("alltoall", counts), (32 * (4 * 10 + 32 * 5), 30))

    def test_coll_sizes(self):
        self.assertEqual(wm.coll_sizes("barrier"), [0])
        self.assertEqual(wm.coll_sizes("bcast"), [4, 32, 256, 2048, 16384, 131072, 1048576])

    def test_raw_schedule(self):
        for size in (1, 16384, 32768, 1 << 20):
            for lat in (True, False):
                self.assertEqual(wm.raw_iterations(size, lat, 1.0),
                                 limits.raw_iterations(size, lat))
        self.assertEqual(wm.raw_iterations(8, True, 0.002), 20)
        self.assertEqual(wm.raw_iterations(8, False, 0.01), 10)
        self.assertEqual(wm.raw_iterations(1 << 20, False, 0.01), 1)   # never below 1


class RawTcp(unittest.TestCase):
    def raw(self):
        path = os.path.join(BUILD, "bench", "raw_tcp")
        if not os.path.exists(path):
            self.skipTest(f"{path} not built")
        return path

    def test_max_and_scale(self):
        raw = self.raw()
        # a server on a free port, a client with max 8 B and a small scale
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = str(s.getsockname()[1])
        srv = subprocess.Popen([raw, "server", port], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        try:
            for _ in range(100):
                out = subprocess.run(["ss", "-Hltn", "sport", "=", f":{port}"],
                                     capture_output=True, text=True).stdout
                if out.strip():
                    break
                subprocess.run(["sleep", "0.05"])
            cli = subprocess.run([raw, "client", "127.0.0.1", port, "bandwidth", "8", "0.001"],
                                 capture_output=True, text=True, timeout=60)
            self.assertEqual(cli.returncode, 0, cli.stderr)
            self.assertEqual([l.split()[0] for l in cli.stdout.splitlines()],
                             ["1", "2", "4", "8"])
            self.assertEqual(srv.wait(timeout=30), 0)
        finally:
            srv.kill()
            srv.wait()

    def test_bad_arguments(self):
        raw = self.raw()
        for args, message in (
                (["latency", "0"], "raw_tcp: max_bytes: expected 1 to 4194304, got '0'"),
                (["latency", "8", "2"], "raw_tcp: scale: expected a number in (0, 1], got '2'"),
                (["lat"], "raw_tcp: expected latency or bandwidth, got 'lat'")):
            r = subprocess.run([raw, "client", "127.0.0.1", "1"] + args, capture_output=True,
                               text=True, timeout=30)
            self.assertEqual((r.returncode, r.stderr.strip()), (2, message))


class CollStep(unittest.TestCase):
    def test_factor_between_sizes(self):
        mpicc, mpirun = (os.path.join(BUILD, "bin", p) for p in ("mpicc", "mpirun"))
        if not os.path.exists(mpirun):
            self.skipTest("no mpirun in the build")
        with tempfile.TemporaryDirectory() as tmp:
            exe = os.path.join(tmp, "coll_bcast")
            subprocess.run([mpicc, "-O2", "-DONLY_BCAST",
                            os.path.join(HERE, os.pardir, "coll", "coll_latency.c"), "-o", exe],
                           check=True, timeout=120)
            r = subprocess.run([mpirun, "-n", "2", exe, "2048", "0.01", "bcast", "8"],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(sorted(wm.parse_coll(r.stdout, "bcast")), [4, 32, 256, 2048])
            r = subprocess.run([mpirun, "-n", "2", exe, "2048", "0.01", "bcast", "1"],
                               capture_output=True, text=True, timeout=60)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("[names [step from 2 to 1024]]", r.stderr)


def made_up_run(latency=None, raw=None, bandwidth=None, iperf=None, colls=None,
                unavailable=None):
    """A WanRun with one round of the given values {slug: {size: value}}."""
    wr = wm.WanRun(["metampi", "metampi-direct", "openmpi", "mpich"])
    for program, values in (("latency", latency or {}), ("bandwidth", bandwidth or {})):
        for slug, by_size in values.items():
            wr.results[program][slug].add_run(by_size, True, sorted(by_size))
    for b, v in (raw or {}).items():
        wr.results["latency"][wm.RAW].add_run({b: v}, True, [b])
    if iperf:
        wr.results["bandwidth"][wm.IPERF].add_run({0: iperf}, True, [0])
    for (coll, slug), by_size in (colls or {}).items():
        wr.results[wm.coll_program(coll)][slug].add_run(by_size, True, sorted(by_size))
    wr.unavailable.update(unavailable or {})
    return wr


class Targets(unittest.TestCase):
    def verdicts(self, wr):
        return [v for _, (v, _) in wt.targets(wr)]

    def test_latency(self):
        raw = {1: 5000.0, 2: 5000.0, 4: 5000.0, 8: 5000.0}
        good = {b: 5400.0 for b in (0, 1, 2, 4, 8)}
        bad = {**good, 8: 5600.0}
        self.assertEqual(wt.latency_eval(made_up_run({"metampi": good}, raw), "metampi")[0],
                         "met")
        verdict, text = wt.latency_eval(made_up_run({"metampi": bad}, raw), "metampi")
        self.assertEqual(verdict, "not met")
        self.assertIn("worst 8 B: 1.120× raw TCP", text)
        self.assertEqual(wt.latency_eval(made_up_run({}, raw), "metampi")[0], "not evaluated")

    def test_bandwidth(self):
        def run(v):
            return made_up_run(bandwidth={"metampi": {512 << 10: v, 1 << 20: 120.0}},
                               iperf=110.0)
        self.assertEqual(wt.bandwidth_eval(run(100.0), "metampi")[0], "met")
        self.assertEqual(wt.bandwidth_eval(run(98.0), "metampi")[0], "not met")

    def test_collectives(self):
        small = {b: 10.0 for b in wm.coll_sizes("bcast") if b <= wt.COLL_SMALL}
        large = {b: 10.0 for b in wm.coll_sizes("bcast") if b >= wt.COLL_LARGE}
        colls = {}
        for coll in wm.COLLS:
            sizes = {0: 10.0} if coll == "barrier" else {**small, **large}
            colls[(coll, "metampi")] = sizes
            colls[(coll, "openmpi")] = {b: 20.0 if b <= wt.COLL_SMALL else 15.0
                                        for b in sizes}
            colls[(coll, "mpich")] = {b: 40.0 for b in sizes}
        wr = made_up_run(colls=colls)
        self.assertEqual(wt.coll_eval(wr, "metampi", False)[0], "met")     # exactly 2x
        self.assertEqual(wt.coll_eval(wr, "metampi", True)[0], "met")      # exactly 1.5x
        colls[("bcast", "openmpi")] = {**colls[("bcast", "openmpi")], 4: 19.0}
        verdict, text = wt.coll_eval(made_up_run(colls=colls), "metampi", False)
        self.assertEqual(verdict, "not met")
        self.assertIn("worst bcast 4 B: 1.90× faster than the better peer", text)

    def test_floor(self):
        # 5 ms one way; iperf3's rate 100 MB/s = 100 bytes/µs
        wr = made_up_run(iperf=100.0)
        self.assertEqual(wt.floor_us(wr, "barrier", 0), 5000.0)
        # between two calls of the others, coll_latency's own barrier releases 2 of the 8
        # ranks one delay early: 1.25 delays on average
        self.assertEqual(wt.harness_factor("allreduce"), 1.25)
        self.assertEqual(wt.floor_us(wr, "allreduce", 100000), 6250.0 + 1000.0)
        self.assertEqual(wt.floor_us(wr, "alltoall", 10000), 6250.0 + 16 * 100.0)
        self.assertIsNone(wt.floor_us(wr, "bcast", 4))
        # without iperf3: the emulated rate, 1 Gbit/s = 125 bytes/µs
        self.assertEqual(wt.floor_us(made_up_run(), "allreduce", 125000), 7250.0)
        # within 1.15x of the floor: 1.15 x 5000 for the barrier is met, just above is not
        colls = {("barrier", "metampi"): {0: 5750.0}}
        self.assertEqual(wt.floor_eval(made_up_run(colls=colls, iperf=100.0), "metampi")[1],
                         "1 of 1 (collective, size) met; worst barrier: 1.15× the floor; "
                         "missing allreduce 4 B, allreduce 32 B, allreduce 256 B, alltoall 4 B, "
                         "alltoall 32 B, alltoall 256 B")
        # a peer at 1.2 x the floor: a 2x target is beyond the link, and the verdict says so
        colls = {("barrier", "metampi"): {0: 5900.0}, ("barrier", "openmpi"): {0: 6000.0},
                 ("barrier", "mpich"): {0: 30000.0}}
        wr = made_up_run(colls=colls, iperf=100.0)
        self.assertTrue(wt.above_floor(wr, "barrier", 0, 2.0))
        self.assertFalse(wt.above_floor(wr, "barrier", 0, 1.1))
        verdict, text = wt.coll_eval(wr, "metampi", False)
        self.assertEqual(verdict, "not met")
        self.assertIn("1 of the 1 not met ask for more than the link allows", text)

    def test_gateways_unavailable(self):
        wr = made_up_run({"metampi-direct": {b: 5000.0 for b in (0, 1, 2, 4, 8)}},
                         {b: 5000.0 for b in (1, 2, 4, 8)},
                         unavailable={"metampi": "gateway mode does not start here: X"})
        rows = wt.targets(wr)
        self.assertEqual([v for _, (v, _) in rows], ["not evaluated"] * 8)
        self.assertIn("for comparison, --direct-wan: met", rows[0][1][1])

    def test_not_measured(self):
        wr = made_up_run()
        wr.error = "no namespaces here"
        self.assertTrue(all("not measured: no namespaces here" in d
                            for _, (_, d) in wt.targets(wr)))


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    opts, rest = ap.parse_known_args()
    BUILD = os.path.realpath(opts.build)
    unittest.main(argv=[sys.argv[0]] + rest)
