#!/usr/bin/env python3
"""Tests of the benchmark runner's structure and raw results (ctest bench.runner; no MPI, no
namespaces, no timing): the modules of bench/metabench/ import only from the layers below
theirs (metabench/__init__.py) and never run_benchmarks.py, none is over 800 lines, and the
raw results of a run, saved and restored (record.py), give the same report, also through
run_benchmarks.py --from-results.

    test_runner.py [unittest options]
"""
import argparse
import ast
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from metabench import document, fileio, limits, noncontig, programs, record, rma, runner, startup  # noqa: E402,E501
from metabench.coll import measure as coll_measure  # noqa: E402
from metabench.coll import report as coll_report  # noqa: E402
from metabench.hetero import measure as hetero_measure  # noqa: E402
from metabench.hetero import report as hetero_report  # noqa: E402
from metabench.mpis import Mpi  # noqa: E402
from metabench.p2p import measure as p2p_measure  # noqa: E402
from metabench.p2p import report as p2p_report  # noqa: E402
from metabench.scale import measure as scale_measure  # noqa: E402
from metabench.scale import report as scale_report  # noqa: E402
from metabench.tcp import measure as tcp_measure  # noqa: E402
from metabench.tcp import report as tcp_report  # noqa: E402
from metabench.threads import measure as threads_measure  # noqa: E402
from metabench.threads import report as threads_report  # noqa: E402
from metabench.wan import measure as wan_measure  # noqa: E402

PACKAGE = os.path.join(HERE, "metabench")
TOP = {"metabench.runner", "metabench.record"}
FAMILIES = ("startup", "noncontig", "rma", "fileio", "p2p", "coll", "tcp", "wan", "convert",
            "threads", "hetero", "scale")


def modules():
    """{module name: path} of every module of the package."""
    found = {}
    for root, _, files in os.walk(PACKAGE):
        for f in files:
            if f.endswith(".py"):
                rel = os.path.relpath(os.path.join(root, f), HERE)[:-3].replace(os.sep, ".")
                found[rel[:-len(".__init__")] if rel.endswith(".__init__") else rel] = \
                    os.path.join(root, f)
    return found


def imports(path, known):
    """The modules of the package (and run_benchmarks, wan) that a module imports."""
    with open(path) as f:
        tree = ast.parse(f.read())
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            for a in node.names:
                sub = f"{node.module}.{a.name}"
                out.add(sub if sub in known else node.module)
    return {m for m in out if m in known or m.split(".")[0] in ("run_benchmarks", "wan")}


def family(name):
    """The benchmark a module belongs to, "top" for the runner, None for a common module."""
    if name in TOP:
        return "top"
    parts = name.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in FAMILIES else None


class Structure(unittest.TestCase):
    def test_layers(self):
        known = modules()
        graph = {m: imports(p, known) for m, p in known.items()}
        for m, deps in graph.items():
            for d in deps:
                self.assertTrue(d.startswith("metabench"), f"{m} imports {d}")
                if d == "metabench":
                    continue
                mine, theirs = family(m), family(d)
                if mine is None:
                    self.assertIsNone(theirs, f"common module {m} imports {d}")
                elif mine != "top":
                    self.assertIn(theirs, (None, mine), f"{m} imports {d}")
        # and no circle: every module can be ordered after what it imports
        done, doing = set(), []

        def visit(m):
            self.assertNotIn(m, doing, f"import circle: {' -> '.join(doing + [m])}")
            if m in done:
                return
            doing.append(m)
            for d in graph.get(m, ()):
                visit(d)
            doing.pop()
            done.add(m)
        for m in graph:
            visit(m)

    def test_module_sizes(self):
        for m, path in modules().items():
            with open(path) as f:
                self.assertLess(len(f.readlines()), 800, m)


# --- a made-up run ----------------------------------------------------------------------------

def value(*key):
    """A float that differs per key (the same in every process), with digits that JSON must
    keep."""
    return 1 + sum((i + 1) * ord(c) for i, c in enumerate(repr(key))) % 100000 / 7.0


def series(result, sizes, *key, fail_from=None):
    """Two rounds of made-up values into a P2pResult; failed from fail_from if given."""
    for rnd in range(2):
        done = {b: value(rnd, b, *key) for b in sizes if fail_from is None or b < fail_from}
        result.add_run(done, fail_from is None, sizes)


def made_up_record(only=None):
    settings = argparse.Namespace(
        build="build", docs="docs", work="work", rounds=2, startup_reps=2, scale=0.05,
        max_bytes=4096, timeout=120, wait_idle=0, coll_rounds=2, coll_max_bytes=1024,
        coll_timeout=60, wan_rounds=1, wan_timeout=60, only=only, quick=True,
        from_results=None, build_dir="/b", scale_reps=2, scale_timeout=300)
    mpis = [Mpi("metampi", "metampi", ["/b/bin/mpicc"], ["/b/bin/mpirun"], [],
                ["--bind-to", "core"], ["--bind-to", "none"]),
            Mpi("Open MPI", "openmpi", ["mpicc.openmpi"], ["mpirun.openmpi"], ["--oversubscribe"],
                ["--bind-to", "core"], ["--oversubscribe", "--bind-to", "none"]),
            Mpi("MPICH", "mpich", ["mpicc.mpich"], ["mpirun.mpich"], [], ["-bind-to", "core"],
                ["-bind-to", "none"])]
    for m in mpis:
        m.programs = {p: f"/w/{m.slug}/{p}" for p in programs.SOURCES}
    mpis[1].unavailable["coll_reduce"] = "does not build: error: no | MPI_Reduce"
    del mpis[1].programs["coll_reduce"]
    mpis[2].failed["bandwidth"] = "failed from 1 KiB on (exit status 1): wrong data"
    ctx = {"commit": "abc1234-dirty", "date": "2026-01-02 03:04 UTC",
           "machine": [("Date", "2026-01-02 03:04 UTC"), ("CPU", "a | b"), ("nproc", "2")],
           "elapsed": 1234.5678, "iperf3": "iperf 3.12 (cJSON 1.7.15)"}
    rec = record.Record(settings, ctx, mpis)
    slugs = [m.slug for m in mpis]
    sizes = programs.expected_sizes(settings.max_bytes)
    if only is None:
        rec.startup = {s: {np: (None if (s, np) == ("mpich", 8) else value(s, np))
                           for np in startup.STARTUP_NP} for s in slugs}
    if only in (None, "p2p"):
        rates = [programs.msgrate_program(n) for n in programs.MSGRATE_PAIRS]
        rec.p2p = p2p_measure.P2pRun({p: {s: p2p_measure.P2pResult() for s in slugs}
                                      for p in list(programs.P2P) + rates})
        for p in programs.P2P:
            for s in slugs:
                series(rec.p2p.results[p][s], sizes, p, s,
                       fail_from=1024 if (s, p) == ("mpich", "bandwidth") else None)
        for p in rates:
            for s in slugs:
                series(rec.p2p.results[p][s], programs.msgrate_sizes(), p, s,
                       fail_from=16 if (s, p) == ("openmpi", rates[-1]) else None)
        mpis[1].failed[rates[-1]] = "failed from 16 B on (exit status 124): timed out"
        rec.p2p.busy = [0.01, 0.25, 0.125]
    if only in (None, "noncontig"):
        rec.noncontig = {label: {s: noncontig.NcResult() for s in slugs}
                         for label, _ in noncontig.NC_RUNS}
        for label, _ in noncontig.NC_RUNS:
            for s in slugs:
                r = rec.noncontig[label][s]
                for key in (("contig", 1 << 20, 1 << 20), ("vector", 256, 1 << 20),
                            ("vector", 8, 1 << 20), ("face_y", 2048, 1 << 19)):
                    r.samples[key] = [value(label, s, *key), value(s, label, *key)]
        rec.noncontig["faces 256^3"]["mpich"].failed = "exit status 1: wrong | data"
    if only is None:
        rec.convert = {"rows": [["doubles from big-endian", 1 << 24, value("c", 1), value("c", 2),
                                 value("c", 3)]], "error": None}
    if only in (None, "rma"):
        rec.rma = {s: rma.RmaResult() for s in slugs}
        for s in slugs:
            for key in (("put", 8), ("acc", 65536), ("cas", 8)):
                if (s, key[0]) != ("openmpi", "cas"):
                    rec.rma[s].samples[key] = [value("rma", s, *key), value(s, "rma", *key)]
        rec.rma["openmpi"].failed = "exit status 139: signal | 11"
    if only in (None, "io"):
        rec.io = {s: fileio.IoResult() for s in slugs}
        for s in slugs:
            rec.io[s].bytes = 1 << 20
            for op in fileio.OPS + fileio.LIMITS:
                if (s, op) != ("mpich", "read_all"):
                    rec.io[s].samples[op] = [value("io", s, op), value(s, "io", op)]
        rec.io["mpich"].failed = "exit status 1: ERROR | read_all"
    if only in (None, "threads"):
        th = threads_measure.ThreadsRun()
        for s in slugs + [threads_measure.NOTHREADS]:
            for t in threads_measure.THREADS:
                for b in (0, 8, 1024):
                    th.add(s, ("latency", t, b), value("lat", s, t, b))
                th.add(s, ("rate", t), value("rate", s, t))
                th.add(s, ("selfrate", t), value("selfrate", s, t))
            for b in (0, 1, 2, 4, 8):
                th.add(s, ("single", b), value("single", s, b))
            for where in threads_measure.WHERE:
                for op in threads_measure.OVERLAP_OPS:
                    for mode in ("off", "on"):
                        if (s, mode) != ("openmpi", "on") and (s == "metampi" or
                                                               where == "one host"):
                            th.add(s, ("overlap", where, op, mode), value("o", s, where, op))
                            th.add(s, ("transfer", where, op, mode), value("t", s, op, mode))
        th.failed["mpich overlap one host isend on"] = "exit status 1: wrong | data"
        th.busy = [0.5, 0.25]
        rec.threads = th
    if only in (None, "hetero"):
        hr = hetero_measure.HeteroRun()
        for s in ("metampi", hetero_measure.NOHETERO, hetero_measure.CONTROL):
            for where in hetero_measure.WHERE:
                for b in hetero_measure.SIZES:
                    for rnd in range(2):
                        hr.add(s, (where, b), value("het", s, where, b, rnd))
        hr.failed["metampi-nohetero two hosts"] = "exit status 77: no | cluster"
        hr.busy = [0.5, 0.25]
        hr.rounds = 2
        rec.hetero = hr
    if only in (None, "scale"):
        sr = scale_measure.ScaleRun(slugs, 2, 300)
        for s in slugs:
            for np in scale_measure.SCALE_NP:
                if (s, np) == ("mpich", 256):
                    sr.failed[s][np] = "np=256: exit status 124: timed out | after 300 s"
                    continue
                for rep in range(2):
                    got = {k: int(value("scale", s, np, k, rep) * np) for k in
                           scale_measure.KEYS}
                    got["ranks"], got["seconds"] = np, value("sec", s, np, rep)
                    sr.samples[s][np].append(got)
        sr.busy = [0.5, 0.125]
        rec.scale = sr
    if only in (None, "coll"):
        rec.coll = coll_measure.CollRun({np: {c: {s: coll_measure.P2pResult() for s in slugs}
                                              for c in programs.COLLS}
                                         for np in coll_measure.COLL_NP})
        for np in coll_measure.COLL_NP:
            for c in programs.COLLS:
                for s in slugs:
                    if (s, c) != ("openmpi", "reduce"):
                        series(rec.coll.results[np][c][s],
                               coll_measure.coll_sizes(c, settings.coll_max_bytes), np, c, s)
        rec.coll.busy, rec.coll.elapsed = [0.5, 0.03], 99.25
    if only in (None, "tcp"):
        tr = tcp_measure.TcpRun(slugs)
        for p in programs.P2P:
            for s in slugs + [limits.RAW]:
                series(tr.results[p][s], [b for b in sizes if b or s != limits.RAW], "tcp", p, s)
                tr.checks[p][s].add(10 ** 6, 900000, 50, 40)
        series(tr.results["bandwidth"][limits.IPERF], [0], "iperf")
        tr.failures[("mpich", "latency")] = "its traffic did not cross the link: | x"
        tr.commands = {s: f"launch {s} 'ip netns exec {{host}}'" for s in slugs}
        tr.left_behind, tr.iperf_retransmits = 3, [0, None]
        tr.busy, tr.elapsed = [0.2], 61.5
        tr.rma = {s: rma.RmaResult() for s in slugs}
        for s in slugs:
            for key in (("put", 8), ("get", 65536)):
                tr.rma[s].samples[key] = [value("tcprma", s, *key), value(s, "tcprma", *key)]
        tr.rma["mpich"].failed = "exit status 1: wrong | data"
        rec.tcp = tr
    if only in (None, "wan"):
        wslugs = ["metampi", "metampi-plain", "metampi-direct", "openmpi", "mpich"]
        wr = wan_measure.WanRun(wslugs)
        for p, by in wr.results.items():
            for s, r in by.items():
                psizes = (wan_measure.coll_sizes(p[5:]) if p.startswith("coll_") else
                          [0] if s == limits.IPERF else
                          [b for b in programs.expected_sizes(wan_measure.P2P_MAX)
                           if b or s != limits.RAW])
                series(r, psizes, "wan", p, s)
                wr.checks[p][s].add(5 * 10 ** 6, 4 * 10 ** 6, 100, 80)
        for c in wan_measure.DEMO_CONFIGS:
            wr.demo[c] = [{"compute": value(c, i), "local": value(i, c), "wan": 0.5 * i,
                           "total": value(c, c, i), "checksum": "0x1234abcd"} for i in range(2)]
            wr.demo_wan_bytes[c] = [1000, 2000]
            wr.checks["demo"][c].add(3000, 960, 130, 120)
        wr.hung[("mpich", "coll_allreduce")] = 2
        wr.retried[("openmpi", "latency")] = 1
        wr.failures[("openmpi", "coll_alltoall")] = "failed from 128 KiB on (exit status 124)"
        wr.commands = {(s, k): f"mpirun {s} {k}" for s in wslugs for k in ("p2p", "coll")}
        wr.commands[("metampi", "demo-one")] = "mpirun demo"
        wr.left_behind, wr.busy, wr.loadavg, wr.elapsed = 2, [0.3, 0.04], [3.5, 7.25], 612.0
        wr.iperf_retransmits, wr.isolated = [12], {"s2h2", "s1h2"}
        wr.logdir, wr.runs = "/w/wan/logs", 42
        wr.recovery.samples, wr.recovery.gateway_up = [0.4, 1.25], [0.3]
        wr.recovery.command = "mpirun recovery"
        rec.wan = wr
    return rec


def report_text(rec, docs):
    """The report of rec as write_report makes it (without plots and exit): the document, or
    the part --only rewrites in a copy of a document without it."""
    args, mpis, ctx = rec.settings, rec.mpis, rec.context
    if args.only is None:
        return runner.markdown(rec, runner.full_verdicts(rec))
    path = os.path.join(docs, "performance.md")
    if args.only == "coll":
        document.update_report(path, coll_report.coll_section(rec.coll, mpis, args, ctx),
                               coll_report.coll_targets(rec.coll.results, mpis,
                                                        args.coll_max_bytes), document.COLL)
    if args.only == "p2p":
        document.update_report(path, [document.P2P.begin] +
                               p2p_report.section(rec.p2p, mpis, args, ctx) +
                               [document.P2P.end, ""],
                               p2p_report.targets(rec.p2p.results, args.max_bytes), document.P2P)
    if args.only == "rma":
        document.update_report(path, [document.RMA.begin] + rma.rma_section(rec.rma, mpis) +
                               [document.RMA.end, ""], rma.rma_targets(rec.rma), document.RMA)
    if args.only == "threads":
        document.update_report(path, [document.THREADS.begin] +
                               threads_report.section(rec.threads, mpis) +
                               [document.THREADS.end, ""], threads_report.targets(rec.threads),
                               document.THREADS)
    if args.only == "hetero":
        document.update_report(path, [document.HETERO.begin] + hetero_report.section(rec.hetero) +
                               [document.HETERO.end, ""], hetero_report.targets(rec.hetero),
                               document.HETERO)
    if args.only == "scale":
        document.update_report(path, [document.SCALE.begin] +
                               scale_report.section(rec.scale, mpis) +
                               [document.SCALE.end, ""], scale_report.targets(rec.scale),
                               document.SCALE)
    if args.only == "io":
        document.update_report(path, [document.IO.begin] + fileio.io_section(rec.io, mpis) +
                               [document.IO.end, ""], fileio.io_targets(rec.io), document.IO)
    if args.only == "noncontig":
        document.update_report(path, [document.NONCONTIG.begin] +
                               noncontig.noncontig_section(rec.noncontig, mpis) +
                               [document.NONCONTIG.end, ""], noncontig.nc_targets(rec.noncontig),
                               document.NONCONTIG)
    with open(path) as f:
        return f.read()


class RawResults(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_saved_and_restored_give_the_same_report(self):
        for only in (None, "p2p", "tcp", "wan", "coll", "rma", "io", "threads", "hetero", "scale",
                     "noncontig"):
            rec = made_up_record(only)
            path = os.path.join(self.tmp, f"results-{only}.json")
            record.save(rec, path)
            back = record.load(path, "elsewhere")
            self.assertEqual(back.settings.docs, "elsewhere")
            back.settings.docs = rec.settings.docs
            if only is None:
                self.assertEqual(report_text(back, self.tmp), report_text(rec, self.tmp))
                text = report_text(back, self.tmp)
                self.assertIn("Recovery per cut: 0.40 s, 1.25 s (median 0.82 s)", text)
                self.assertIn("traffic flows again at most 2 s after a 10 s cut", text)
                self.assertIn("within 5% of the same with [wan] encrypt = off", text)
                self.assertIn("Alltoall of 4 B–1 KiB, 2 sites × 4 ranks: within 1.15× of the "
                              "WAN floor (the broadcast has none)", text)
                self.assertIn("the demo's two-site step time within 1.15× of its computation "
                              "+ its WAN floor, metampi with gateways | **", text)
                self.assertIn("| total / floor | runs |", text)
            for part in ("tcp", "wan"):
                if getattr(rec, part) is not None:
                    a, b = getattr(rec, part), getattr(back, part)
                    self.assertEqual(a.failures, b.failures)
                    self.assertEqual([r.median(8) for r in a.results["latency"].values()],
                                     [r.median(8) for r in b.results["latency"].values()])
            if only in ("p2p", "rma", "io", "threads", "hetero", "scale", "noncontig"):
                self.assertEqual(report_text(back, self.tmp), report_text(rec, self.tmp))
            if only in (None, "p2p"):
                text = report_text(back, self.tmp)
                self.assertIn("## Message rate", text)
                self.assertIn("| 64 B |", text)
                self.assertIn("Open MPI: failed from 16 B on (exit status 124)", text)
                self.assertIn("| Point to point on one host: message rate 1–64 B, 1 and 2 "
                              "pairs, at least 1.1× the better peer | **not met** |", text)
            if only == "p2p":
                self.assertIn("Measured 2026-01-02 03:04 UTC, commit abc1234-dirty, 2 rounds",
                              text)
            if only == "coll":
                text = report_text(back, self.tmp)
                self.assertIn("| Collective latency, 8 ranks on 2 cores (oversubscribed): ratio "
                              "≤ 1.0 (at or below the better of Open MPI and MPICH) for every "
                              "collective and size | **", text)
                self.assertIn("| Collective latency, 4 ranks on 2 cores (oversubscribed): ratio "
                              "≤ 1.0", text)
                self.assertNotIn("| Collective latency, 2 ranks", text)
                self.assertIn("| size | 2 ranks: metampi | Open MPI | MPICH | ratio | 4 ranks: "
                              "metampi | Open MPI | MPICH | ratio | target ≤ 1.0 | 8 ranks: "
                              "metampi | Open MPI | MPICH | ratio | target ≤ 1.0 |", text)
                self.assertIn("| MPI | 2 ranks, one per core | 4 ranks on 2 cores | 8 ranks on "
                              "2 cores |", text)
                self.assertIn("`mpirun.openmpi --oversubscribe --bind-to none -n 8 "
                              "./coll_latency`", text)
                self.assertIn("![collective latency, 8 ranks](perf/coll_8ranks.png)", text)
            if only == "noncontig":
                text = report_text(back, self.tmp)
                self.assertIn("### vector 4 MiB", text)
                self.assertIn("| Strided vectors with blocks ≥ 256 B", text)
                self.assertIn("| Non-contiguous bandwidth at or above", text)
            if only == "threads":
                text = report_text(back, self.tmp)
                self.assertIn("### Multi-threaded message rate", text)
                self.assertIn("| two sites | iallreduce |", text)
                self.assertIn("| Threads: 1 MiB across two sites", text)
            if only == "hetero":
                text = report_text(back, self.tmp)
                self.assertIn("| two hosts | 64 KiB |", text)
                self.assertIn("| Heterogeneity: 0–8 B latency between like peers", text)
                self.assertIn("- metampi-nohetero two hosts: exit status 77", text)
                self.assertIn("| control / out, best |", text)
                self.assertIn("(control):", text)
            if only == "scale":
                text = report_text(back, self.tmp)
                self.assertIn("### 256 ranks", text)
                self.assertIn("| Scale on one host: at 64, 128 and 256 ranks", text)
                self.assertIn("- MPICH: failed after 0 of 2 runs: np=256: exit status 124: timed out / after", text)
                self.assertIn("| 256 | 16 | 128 KiB |", text)
            if only == "tcp":
                self.assertEqual({s: r.median(("put", 8)) for s, r in rec.tcp.rma.items()},
                                 {s: r.median(("put", 8)) for s, r in back.tcp.rma.items()})
                text = "\n".join(tcp_report.tcp_section(back.tcp, back.mpis, back.settings,
                                                         back.context))
                self.assertIn("### One-sided communication between two hosts", text)
                self.assertIn("one-sided put of 8 B + MPI_Win_flush within 1.2×", text)
                self.assertRegex(text, r"latency 4 KiB–32 KiB within 1\.20× of raw TCP "
                                       r"ping-pong \| \*\*(not )?met\*\* \| worst \d+ KiB: ")
                self.assertIn("latency 0–8 B within 5% of raw TCP", text)
                self.assertIn("MPICH: exit status 1: wrong / data", text.replace("|", "/"))
            if rec.wan is not None:
                self.assertEqual(back.wan.isolated, {"s1h2", "s2h2"})
                self.assertEqual(back.wan.commands, rec.wan.commands)
                self.assertEqual(back.wan.recovery.samples, [0.4, 1.25])
            record.save(back, path + ".again")
            with open(path) as a, open(path + ".again") as b:
                self.assertEqual(a.read(), b.read())

    def test_from_results(self):
        """run_benchmarks.py --from-results writes the part of the document that the saved
        run measured, and exits as that run would have (1: a program failed)."""
        rec = made_up_record("coll")
        path = os.path.join(self.tmp, "results-coll.json")
        record.save(rec, path)
        direct, via = os.path.join(self.tmp, "direct"), os.path.join(self.tmp, "via")
        for d in (direct, via):
            os.makedirs(d)
            with open(os.path.join(d, "performance.md"), "w") as f:
                f.write("# Performance\n\n## Targets (from the issue)\n\n| Target | Status | "
                        "Worst size |\n|---|---|---|\n| Latency | **met** | x |\n\n## Startup\n")
        expected = report_text(rec, direct)
        r = subprocess.run([sys.executable, os.path.join(HERE, "run_benchmarks.py"),
                            "--docs", via, "--from-results", path],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("FAILED (MPICH bandwidth)", r.stderr)
        with open(os.path.join(via, "performance.md")) as f:
            self.assertEqual(f.read(), expected)
        for np in coll_measure.COLL_NP:
            self.assertTrue(os.path.exists(os.path.join(via, "perf", f"coll_{np}ranks.png")))

    def test_only_noncontig_keeps_its_place(self):
        """--only noncontig replaces its section between the markers and its two rows of the
        targets table where they stood, and nothing else."""
        rec = made_up_record("noncontig")
        path = os.path.join(self.tmp, "performance.md")
        before = ["# Performance", "", "## Targets (from the issue)", "",
                  "| Target | Status | Worst size |", "|---|---|---|",
                  "| Latency | **met** | x |",
                  "| Strided vectors with blocks ≥ 256 B: old | **not met** | old |",
                  "| Non-contiguous bandwidth: old | **not met** | old |",
                  "| Collective I/O | **met** | y |", "", "## Streaming bandwidth", "",
                  document.NONCONTIG.begin, "## Non-contiguous transfers", "old table",
                  document.NONCONTIG.end, "", document.RMA.begin, "rma", document.RMA.end,
                  "", "## Startup", ""]
        with open(path, "w") as f:
            f.write("\n".join(before))
        lines = report_text(rec, self.tmp).split("\n")
        rows = [l for l in lines if l.startswith("| ") and "**" in l]
        self.assertEqual([r.split(" |")[0] for r in rows],
                         ["| Latency", "| Strided vectors with blocks ≥ 256 B: ≥ 90% of "
                          "metampi's contiguous bandwidth (same bytes, same run)",
                          "| Non-contiguous bandwidth at or above the better of Open MPI and "
                          "MPICH for every block size", "| Collective I/O"])
        self.assertNotIn("old table", lines)
        self.assertEqual(lines.count("## Non-contiguous transfers"), 1)
        self.assertLess(lines.index("## Streaming bandwidth"),
                        lines.index("## Non-contiguous transfers"))
        self.assertLess(lines.index(document.NONCONTIG.end), lines.index(document.RMA.begin))
        self.assertIn("rma", lines)

    def test_coll_targets(self):
        """Target 6: at 4 and 8 ranks a ratio above 1.0 at any (collective, size) is not met,
        1.0 is; 2 ranks has no target, however slow."""
        rec = made_up_record("coll")
        mpis, sizes = rec.mpis, coll_measure.coll_sizes
        for np in coll_measure.COLL_NP:
            for c in programs.COLLS:
                for s in ("metampi", "openmpi", "mpich"):
                    r = coll_measure.P2pResult()
                    r.add_run({b: 10.0 for b in sizes(c, 1024)}, True, sizes(c, 1024))
                    rec.coll.results[np][c][s] = r
        rec.coll.results[2]["bcast"]["metampi"].samples[64] = [99.0]

        def verdicts():
            return {name.split(",")[1].strip().split(" ")[0]: v for name, (v, _) in
                    coll_report.coll_targets(rec.coll.results, mpis, 1024)}
        self.assertEqual(verdicts(), {"4": "met", "8": "met"})
        rec.coll.results[8]["alltoall"]["metampi"].samples[256] = [10.1]
        got = coll_report.coll_targets(rec.coll.results, mpis, 1024)
        self.assertEqual(verdicts(), {"4": "met", "8": "not met"})
        self.assertIn("worst alltoall at 256 B: metampi 1.01× slower", got[1][1][1])
        self.assertIn("25 of 26 (collective, size) met", got[1][1][1])

    def test_not_a_results_file(self):
        path = os.path.join(self.tmp, "x.json")
        with open(path, "w") as f:
            f.write('{"format": "something else"}')
        r = subprocess.run([sys.executable, os.path.join(HERE, "run_benchmarks.py"),
                            "--docs", self.tmp, "--from-results", path],
                           capture_output=True, text=True, timeout=60)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("not a results file of this runner", r.stderr)


if __name__ == "__main__":
    unittest.main()
