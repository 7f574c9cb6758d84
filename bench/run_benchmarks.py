#!/usr/bin/env python3
"""metampi benchmarks against Open MPI and MPICH, measured in the same run.

Builds bench/startup/init_finalize.c, bench/p2p/latency.c, bench/p2p/bandwidth.c,
bench/p2p/noncontig.c and bench/coll/coll_latency.c (once per collective) with each MPI's own
compiler wrapper, runs them with each MPI's own launcher and writes docs/performance.md
(tables, ratios, the issues' targets met / not met) plus PNG plots in docs/perf/. Latency and
bandwidth also run between two emulated hosts (network namespaces, one rank each, TCP) against
raw TCP (bench/tcp/raw_tcp) and iperf3, and between two emulated sites joined by an emulated
WAN (bench/wan/: latency, bandwidth, collectives and the demo, metampi with gateways and with
--direct-wan). With --only coll, tcp or wan, runs that part alone and replaces only its part of
docs/performance.md.

The machine is noisy, so the MPIs take turns within every round (A B C, B C A, ...: a slow
phase hits all of them alike) and medians over the rounds are reported. Timings never fail
this script. A program that does not build is "not available" in the tables; one that crashes,
hangs (timeout) or delivers wrong data is "failed" in the tables, is not run again, and makes
the exit status 1 once the report is written. Needs matplotlib (bench/setup.sh installs it for
/usr/bin/python3).
"""
import argparse
import datetime
import json
import os
import platform
import re
import select
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# bench/wan/ imports this module as `run_benchmarks` for its helpers: run as a script, it is
# __main__, and must not be loaded a second time under its own name.
if __name__ == "__main__":
    sys.modules.setdefault("run_benchmarks", sys.modules[__name__])
if HERE not in sys.path:
    sys.path.insert(0, HERE)
SOURCES = {"init_finalize": "startup/init_finalize.c",
           "latency": "p2p/latency.c",
           "bandwidth": "p2p/bandwidth.c",
           "noncontig": "p2p/noncontig.c"}
P2P = ("latency", "bandwidth")
# coll_latency is built once per collective (-DONLY_BCAST, ...), so that an MPI lacking one
# collective still has the others, and a collective that crashes or hangs costs only its own
# results. Program name: "coll_<collective>".
COLLS = ("barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall")
COLL_TITLES = {"barrier": "MPI_Barrier", "bcast": "MPI_Bcast", "reduce": "MPI_Reduce",
               "allreduce": "MPI_Allreduce", "allgather": "MPI_Allgather",
               "alltoall": "MPI_Alltoall"}
for _c in COLLS:
    SOURCES["coll_" + _c] = "coll/coll_latency.c"
FLAGS = {"coll_" + c: ["-DONLY_" + c.upper()] for c in COLLS}
COLL_MAX_BYTES = 1 << 20
# Rank counts of the collective runs: 2 is one rank per core (pinned like point to point),
# 4 oversubscribes the 2 cores of the reference machine (no binding). Target per rank count:
# metampi's latency / the better peer's, at most this at every collective and size.
COLL_NP = (2, 4)
COLL_LIMIT = {2: 1.0, 4: 1.5}
# The collective part of docs/performance.md lies between these lines, so that --only coll
# can replace it; its rows in the targets table start with COLL_TARGET_PREFIX.
COLL_BEGIN = "<!-- collectives: begin (bench/run_benchmarks.py --only coll rewrites this part) -->"
COLL_END = "<!-- collectives: end -->"
COLL_TARGET_PREFIX = "Collective latency"
# noncontig runs: (label, arguments after max_bytes/scale): strided vectors of 1 and 4 MiB,
# and the faces of a 256^3 array of doubles (512 KiB each)
NC_RUNS = [("vector 1 MiB", [str(1 << 20)]), ("vector 4 MiB", [str(4 << 20)]),
           ("faces 256^3", [str(1 << 20), "256"])]
NC_MIN_BLOCK = 256          # blocks from here on must reach NC_CONTIG_SHARE of contiguous
NC_CONTIG_SHARE = 0.90
STARTUP_NP = [1, 2, 4, 8]
MAX_BYTES = 4 << 20
# Open MPI refuses root without these; harmless for the others and when not root.
OMPI_ROOT_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
STYLES = {"metampi": ("tab:red", "o"), "openmpi": ("tab:blue", "s"), "mpich": ("tab:green", "^")}
SLOWDOWN_LIMIT = 1.2


class Mpi:
    def __init__(self, name, slug, cc, launcher, startup_opts, bind_opts, oversub_opts):
        self.name, self.slug, self.cc, self.launcher = name, slug, cc, launcher
        self.startup_opts = startup_opts   # for mpirun -n 1..8 init_finalize
        self.bind_opts = bind_opts         # for the 2-rank programs: one rank per core
        self.oversub_opts = oversub_opts   # for more ranks than cores: no binding
        self.programs = {}                 # program -> executable, for those that built
        self.unavailable = {}              # program -> why it did not build
        self.failed = {}                   # program -> why a run failed

    def startup_command(self, np):
        return self.launcher + self.startup_opts + ["-n", str(np), self.programs["init_finalize"]]

    def p2p_command(self, program, max_bytes, scale):
        return (self.launcher + self.bind_opts +
                ["-n", "2", self.programs[program], str(max_bytes), str(scale)])

    def noncontig_command(self, extra, scale):
        return (self.launcher + self.bind_opts +
                ["-n", "2", self.programs["noncontig"], extra[0], str(scale)] + extra[1:])

    def coll_opts(self, np):
        return self.bind_opts if np <= 2 else self.oversub_opts

    def coll_command(self, coll, np, max_bytes, scale):
        return (self.launcher + self.coll_opts(np) +
                ["-n", str(np), self.programs["coll_" + coll], str(max_bytes), str(scale)])


def metampi_launch_opts(mpirun):
    """(one rank per core, oversubscribed): --bind-to core / none only if this metampi's
    mpirun knows the option (it binds to cores by default when there are enough of them,
    and not at all when there are more ranks than cores)."""
    _, out, err, _ = run([mpirun, "--help"], timeout=30)
    if "--bind-to" not in out + err:
        return [], []
    return ["--bind-to", "core"], ["--bind-to", "none"]


def mpis_under_test(build):
    mpirun = os.path.join(build, "bin", "mpirun")
    return [
        Mpi("metampi", "metampi", [os.path.join(build, "bin", "mpicc")], [mpirun],
            [], *metampi_launch_opts(mpirun)),
        # More ranks than cores is the point of np=8 on small machines. With
        # --oversubscribe, Open MPI also yields the core while it waits.
        Mpi("Open MPI", "openmpi", ["mpicc.openmpi"], ["mpirun.openmpi"],
            ["--oversubscribe"], ["--bind-to", "core"], ["--oversubscribe", "--bind-to", "none"]),
        # Hydra starts any number of ranks; it has no option to make them yield.
        Mpi("MPICH", "mpich", ["mpicc.mpich"], ["mpirun.mpich"], [], ["-bind-to", "core"],
            ["-bind-to", "none"]),
    ]


# --- running things -----------------------------------------------------------------------

def run(cmd, timeout):
    """Returns (exit status, stdout, stderr, seconds); status 124 for a timeout (with the
    output so far), 127 if unrunnable. The command gets its own process group, which is
    killed whole on a timeout so no rank is left behind."""
    env = dict(os.environ, **OMPI_ROOT_ENV)
    start = time.perf_counter()
    try:
        p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             stdin=subprocess.DEVNULL, text=True, start_new_session=True)
    except OSError as e:
        return 127, "", str(e), time.perf_counter() - start
    try:
        out, err = p.communicate(timeout=timeout)
        return p.returncode, out, err, time.perf_counter() - start
    except subprocess.TimeoutExpired:
        out, err = kill_group(p)
        return 124, out, f"timed out after {timeout} s\n{err}", time.perf_counter() - start
    except BaseException:
        kill_group(p)   # the runner is interrupted (Ctrl-C, SIGTERM): take the run along
        raise


def kill_group(p):
    """SIGTERM to the command's process group, SIGKILL 5 s later; returns the output so far."""
    for sig, grace in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            pass
        try:
            return p.communicate(timeout=grace)
        except subprocess.TimeoutExpired:
            continue
    return "", ""


def first_error_line(text):
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    errors = [l for l in lines if re.search(r"error|undefined reference|abort|corrupt|wrong|timed out|killed|"
                                            r"signal|fail", l, re.I)]
    line = (errors or lines or ["(no message)"])[0]
    return line.replace(HERE + os.sep, "bench" + os.sep)[:240]


def build_programs(mpis, work, names):
    for mpi in mpis:
        outdir = os.path.join(work, mpi.slug)
        os.makedirs(outdir, exist_ok=True)
        for name in names:
            exe = os.path.join(outdir, name)
            status, _, err, _ = run(mpi.cc + ["-O2"] + FLAGS.get(name, []) +
                                    [os.path.join(HERE, SOURCES[name]), "-o", exe],
                                    timeout=120)
            if status == 0:
                mpi.programs[name] = exe
            else:
                mpi.unavailable[name] = f"does not build: {first_error_line(err)}"
            print(f"  build {mpi.name:8} {name:13}: "
                  f"{'ok' if status == 0 else 'NOT AVAILABLE (build failed)'}", flush=True)


def rotated(items, k):
    k %= len(items)
    return items[k:] + items[:k]


def cpu_busy(seconds=0.3):
    """Fraction of all CPUs busy over `seconds` (from /proc/stat), or None if unreadable.
    Called between runs, so what it sees is other work on the machine."""
    def sample():
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
        return sum(fields), fields[3] + fields[4]   # total, idle + iowait
    try:
        total0, idle0 = sample()
        time.sleep(seconds)
        total1, idle1 = sample()
    except (OSError, ValueError, IndexError):
        return None
    return 1 - (idle1 - idle0) / max(total1 - total0, 1)


def wait_for_idle(max_wait, threshold=0.10):
    """Waits up to max_wait seconds for other work to drop below threshold; returns the last
    busy fraction seen (None if unknown)."""
    deadline = time.perf_counter() + max_wait
    busy = cpu_busy()
    while busy is not None and busy > threshold and time.perf_counter() < deadline:
        time.sleep(1)
        busy = cpu_busy()
    return busy


def note_load(args, busy_list):
    """Before a run: waits (within what is left of --wait-idle) for other work on the machine
    to drop, and records the load seen in busy_list."""
    waited = time.perf_counter()
    busy = wait_for_idle(args.idle_budget)
    args.idle_budget = max(0.0, args.idle_budget - (time.perf_counter() - waited))
    if busy is not None:
        busy_list.append(busy)


def median_or_none(values):
    return statistics.median(values) if values else None


# --- startup ------------------------------------------------------------------------------

def measure_startup(mpis, reps, timeout):
    """{mpi slug: {np: median seconds or None}} for `mpirun -n np init_finalize`."""
    samples = {m.slug: {np: [] for np in STARTUP_NP} for m in mpis}
    failed = {m.slug: set() for m in mpis}
    for np in STARTUP_NP:
        for rep in range(reps):
            for mpi in rotated(mpis, rep):
                if "init_finalize" not in mpi.programs or np in failed[mpi.slug]:
                    continue
                status, _, err, seconds = run(mpi.startup_command(np), timeout)
                if status == 0:
                    samples[mpi.slug][np].append(seconds)
                else:
                    failed[mpi.slug].add(np)
                    mpi.failed.setdefault("init_finalize", f"np={np} exited {status}: "
                                                           f"{first_error_line(err)}")
        print(f"  startup np={np}: " + ", ".join(
            f"{m.name} {fmt(median_or_none(samples[m.slug][np]), 3)} s" for m in mpis),
            flush=True)
    return {slug: {np: (None if np in failed[slug] else median_or_none(s))
                   for np, s in per_np.items()} for slug, per_np in samples.items()}


# --- point to point -----------------------------------------------------------------------

def expected_sizes(max_bytes):
    sizes, b = [0], 1
    while b <= max_bytes:
        sizes.append(b)
        b *= 2
    return sizes


def parse_p2p(out):
    """{bytes: value}: latency in µs, or messages per second for the bandwidth program."""
    return {int(m.group(1)): float(m.group(2))
            for m in re.finditer(r"^(\d+) \d+ (?:\S+ )?([\d.]+)$", out, re.M)}


class P2pResult:
    """Per program (or collective and rank count) and MPI: the samples per size, and since
    which size it failed (if it did)."""

    def __init__(self):
        self.samples = {}      # bytes -> [value per round]
        self.failed_from = None

    def add_run(self, values, complete, sizes):
        for b, v in values.items():
            self.samples.setdefault(b, []).append(v)
        if not complete:
            self.failed_from = next((b for b in sizes if b not in values), sizes[-1])

    def median(self, b):
        if self.failed_from is not None and b >= self.failed_from:
            return None
        return median_or_none(self.samples.get(b, []))


def measure_p2p(mpis, args):
    """{program: {mpi slug: P2pResult}}; rounds interleave the MPIs, rotating who goes first."""
    sizes = expected_sizes(args.max_bytes)
    results = {p: {m.slug: P2pResult() for m in mpis} for p in P2P}
    for rnd in range(args.rounds):
        for program in P2P:
            for mpi in rotated(mpis, rnd):
                if program in mpi.programs and program not in mpi.failed:
                    run_p2p_once(mpi, program, results[program][mpi.slug], sizes, args)
        print(f"  round {rnd + 1}/{args.rounds} done", flush=True)
    return results


def run_p2p_once(mpi, program, result, sizes, args):
    cmd = mpi.p2p_command(program, args.max_bytes, args.scale)
    note_load(args, args.busy)
    status, out, err, seconds = run(cmd, args.timeout)
    values = parse_p2p(out)
    complete = status == 0 and all(b in values for b in sizes)
    result.add_run(values, complete, sizes)
    if not complete:
        mpi.failed[program] = (f"failed from {human_bytes(result.failed_from)} on (exit status "
                               f"{status}): {first_error_line(err + out)}")
    print(f"    {program:9} {mpi.name:8} {seconds:6.1f} s "
          f"{'ok' if complete else 'FAILED: ' + mpi.failed[program]}", flush=True)


# --- non-contiguous transfers -------------------------------------------------------------

def parse_noncontig(out):
    """{(case, block bytes, bytes): MB/s} from noncontig's output."""
    return {(m.group(1), int(m.group(2)), int(m.group(3))): float(m.group(4))
            for m in re.finditer(r"^(\w+) (\d+) (\d+) \d+ ([\d.]+)$", out, re.M)}


class NcResult:
    """Per noncontig run label and MPI: samples per (case, block, bytes), and whether it failed."""

    def __init__(self):
        self.samples = {}
        self.failed = None

    def median(self, key):
        return None if self.failed else median_or_none(self.samples.get(key, []))


def measure_noncontig(mpis, args):
    """{run label: {mpi slug: NcResult}}; rounds interleave the MPIs as for point to point."""
    results = {label: {m.slug: NcResult() for m in mpis} for label, _ in NC_RUNS}
    for rnd in range(args.rounds):
        for label, extra in NC_RUNS:
            for mpi in rotated(mpis, rnd):
                r = results[label][mpi.slug]
                if "noncontig" not in mpi.programs or r.failed:
                    continue
                note_load(args, args.busy)
                status, out, err, seconds = run(mpi.noncontig_command(extra, args.scale),
                                                args.timeout)
                values = parse_noncontig(out)
                for key, v in values.items():
                    r.samples.setdefault(key, []).append(v)
                if status != 0:
                    r.failed = f"exit status {status}: {first_error_line(err + out)}"
                    mpi.failed.setdefault("noncontig", f"{label}: {r.failed}")
                print(f"    noncontig {label:12} {mpi.name:8} {seconds:6.1f} s "
                      f"{'ok' if status == 0 else 'FAILED: ' + r.failed}", flush=True)
        print(f"  noncontig round {rnd + 1}/{args.rounds} done", flush=True)
    return results


def nc_keys(nc, label):
    """The (case, block, bytes) keys of a run, contig first, then by case and block."""
    keys = set()
    for r in nc[label].values():
        keys |= set(r.samples)
    return sorted(keys, key=lambda k: (k[0] != "contig", k[0], k[1]))


def nc_contig(nc, label, slug, nbytes):
    return nc[label][slug].median(("contig", nbytes, nbytes))


def nc_targets(nc):
    """The two targets of the datatype issue, as (name, (verdict, worst))."""
    share, versus = [], []
    missing = False
    for label, _ in NC_RUNS:
        for key in nc_keys(nc, label):
            case, block, nbytes = key
            if case == "contig":
                continue
            mine = nc[label]["metampi"].median(key)
            contig = nc_contig(nc, label, "metampi", nbytes)
            peers = [nc[label][p].median(key) for p in ("openmpi", "mpich")]
            peers = [v for v in peers if v is not None]
            if mine is None:
                missing = True
                continue
            if case == "vector" and block >= NC_MIN_BLOCK and contig:
                share.append((mine / contig, f"{label}, {human_bytes(block)} blocks"))
            if peers:
                versus.append((mine / max(peers), f"{label}, {case} {human_bytes(block)} blocks"))

    def verdict(values, limit, describe):
        if not values:
            return ("not evaluated", "no results")
        worst = min(values)
        status = "met" if worst[0] >= limit and not missing else "not met"
        return (status, describe(worst) + ("; metampi results missing" if missing else ""))

    return [
        (f"Strided vectors with blocks ≥ {NC_MIN_BLOCK} B: ≥ {NC_CONTIG_SHARE:.0%} of "
         "metampi's contiguous bandwidth (same bytes, same run)",
         verdict(share, NC_CONTIG_SHARE, lambda w: f"{w[1]}: {w[0]:.0%} of contiguous")),
        ("Non-contiguous bandwidth at or above the better of Open MPI and MPICH for every "
         "block size",
         verdict(versus, 1.0, lambda w: f"{w[1]}: metampi {describe_slowdown(1 / w[0])} the "
                                        "better peer")),
    ]


# --- collectives -------------------------------------------------------------------------

def coll_sizes(coll, max_bytes):
    """The sizes coll_latency reports: 0 for barrier, else 4 B, 16 B, ... max_bytes."""
    if coll == "barrier":
        return [0]
    sizes, b = [], 4
    while b <= max_bytes:
        sizes.append(b)
        b *= 4
    return sizes


def parse_coll(out, coll):
    """{bytes: average latency in µs over the ranks} from coll_latency's lines for coll."""
    return {int(m.group(1)): float(m.group(2))
            for m in re.finditer(rf"^{coll} (\d+) \d+ ([\d.]+) [\d.]+ [\d.]+$", out, re.M)}


def coll_key(coll, np):
    """What a failed collective run is filed under in Mpi.failed."""
    return f"coll_{coll} -n {np}"


def measure_coll(mpis, args):
    """{np: {collective: {mpi slug: P2pResult}}}; every round runs each collective with each
    rank count for every MPI, the MPIs taking turns as for point to point."""
    results = {np: {c: {m.slug: P2pResult() for m in mpis} for c in COLLS} for np in COLL_NP}
    for rnd in range(args.coll_rounds):
        began = time.perf_counter()
        for np in COLL_NP:
            for coll in COLLS:
                for mpi in rotated(mpis, rnd):
                    r = results[np][coll][mpi.slug]
                    if "coll_" + coll in mpi.programs and r.failed_from is None:
                        run_coll_once(mpi, coll, np, r, args)
        print(f"  collectives round {rnd + 1}/{args.coll_rounds} done "
              f"({time.perf_counter() - began:.0f} s)", flush=True)
    return results


def run_coll_once(mpi, coll, np, result, args):
    sizes = coll_sizes(coll, args.coll_max_bytes)
    note_load(args, args.coll_busy)
    status, out, err, seconds = run(mpi.coll_command(coll, np, args.coll_max_bytes, args.scale),
                                    args.coll_timeout)
    values = parse_coll(out, coll)
    complete = status == 0 and all(b in values for b in sizes)
    result.add_run(values, complete, sizes)
    if not complete:
        mpi.failed[coll_key(coll, np)] = (
            f"failed from {human_bytes(result.failed_from)} on (exit status {status}): "
            f"{first_error_line(err + out)}")
    print(f"    {coll:9} -n {np} {mpi.name:8} {seconds:6.1f} s "
          f"{'ok' if complete else 'FAILED: ' + mpi.failed[coll_key(coll, np)]}", flush=True)


def coll_ratio(coll_results, np, coll, b):
    """(metampi / better peer, metampi's latency, the better peer's), None where missing."""
    row = coll_results[np][coll]
    mine = row["metampi"].median(b)
    best = best_peer({slug: r.median(b) for slug, r in row.items()}, False)
    return (mine / best if mine is not None and best else None), mine, best


def coll_target_name(np):
    if np <= 2:
        return (f"{COLL_TARGET_PREFIX}, {np} ranks (one per core): at or below the better of "
                "Open MPI and MPICH for every collective and size")
    return (f"{COLL_TARGET_PREFIX}, {np} ranks on 2 cores (oversubscribed): no collective more "
            f"than {COLL_LIMIT[np]}× slower than the better peer")


def coll_target(coll_results, mpis, np, max_bytes):
    """(verdict, worst) for one rank count: met iff metampi has every (collective, size) and
    none is above the limit; not evaluated while metampi's results are missing (not built)
    and none of what it has is over the limit or failed."""
    metampi = next(m for m in mpis if m.slug == "metampi")
    limit = COLL_LIMIT[np]
    rows, over, missing, failed, no_peer = 0, [], [], [], []
    for coll in COLLS:
        r = coll_results[np][coll]["metampi"]
        if r.failed_from is not None:
            failed.append(f"{coll} failed from {human_bytes(r.failed_from)}")
        elif "coll_" + coll in metampi.unavailable:
            missing.append(coll)
        for b in coll_sizes(coll, max_bytes):
            ratio_, mine, best = coll_ratio(coll_results, np, coll, b)
            if ratio_ is None:
                if mine is not None:
                    no_peer.append(f"{coll} {human_bytes(b)}")
                continue
            rows += 1
            if ratio_ > limit:
                over.append((ratio_, coll, b))
    ok = rows - len(over)
    parts = [f"{ok} of {rows} (collective, size) met"] if rows else ["no metampi results"]
    worst = max(over) if over else None
    if worst:
        parts.append(f"worst {worst[1]} at {human_bytes(worst[2])}: metampi "
                     f"{describe_slowdown(worst[0])} the better peer")
    if missing:
        parts.append("metampi " + ", ".join(missing) + " not available")
    parts += failed
    if no_peer:
        parts.append("no peer result at " + ", ".join(no_peer))
    if over or failed:
        verdict = "not met"
    elif missing or not rows:
        verdict = "not evaluated"
    else:
        verdict = "met"
    return verdict, "; ".join(parts)


def coll_targets(coll_results, mpis, max_bytes):
    return [(coll_target_name(np), coll_target(coll_results, mpis, np, max_bytes))
            for np in COLL_NP]


# --- between two hosts (TCP) ---------------------------------------------------------------
#
# Two emulated hosts (tests/cluster/vcluster.sh --hosts 2: network namespaces h1, h2 joined by
# a bridge, veth links), one rank per host. metampi starts from the root namespace through its
# helpers (--launch-agent "ip netns exec {host}"); Open MPI's and MPICH's launchers run inside
# h1, with bench/tcp/netns_agent.sh as their ssh, and every process of theirs in a UTS
# namespace of its own named after its host (the emulated hosts share the machine's host name
# otherwise). The limits: bench/tcp/raw_tcp (ping-pong and stream over one TCP connection) and
# iperf3 (one TCP stream). Every run is checked to have crossed the link: the bytes (and, for
# the ping-pong, packets) counted on h1's eth0 during the run must be at least what the program
# timed. Failures here are reported and never change the exit status.

CLUSTER_SCRIPT = os.path.join(HERE, os.pardir, "tests", "cluster", "vcluster.sh")
NETNS_AGENT = os.path.join(HERE, "tcp", "netns_agent.sh")
TCP_BEGIN = "<!-- tcp: begin (bench/run_benchmarks.py --only tcp rewrites this part) -->"
TCP_END = "<!-- tcp: end -->"
TCP_TARGET_PREFIX = "Between two hosts (TCP)"
TCP_LAT_LIMIT = 1.10        # metampi 0-8 B latency / raw TCP ping-pong, at most
TCP_BW_SHARE = 0.95         # metampi 1-4 MiB bandwidth / iperf3, at least
TCP_SMALL = 8               # "small" latency sizes: 0 ... this
TCP_LARGE = 1 << 20         # "large" bandwidth sizes: this ... max_bytes
RAW_MAX = 4 << 20           # raw_tcp's fixed schedule: 1 B ... 4 MiB
RAW_WINDOW = 64
RAW_PORT, IPERF_PORT = 5301, 5201
IPERF_SECONDS = 5
# Contenders besides the MPIs (slugs), and how they are drawn.
RAW, IPERF = "raw", "iperf3"
TCP_NAMES = {RAW: "raw TCP", IPERF: "iperf3"}
TCP_STYLES = {RAW: ("black", "x"), IPERF: ("tab:gray", None)}
# What each MPI is given so that its traffic takes the link, as the report states it.
TCP_HOW = {
    "metampi": "nothing: its helper sets `METAMPI_HOSTNAME` on each host, so the two ranks are "
               "on different hosts and talk over TCP",
    "openmpi": "its own host name on each host (UTS namespace), `--mca pml ob1 --mca btl "
               "tcp,self` (no shared-memory BTL), TCP only on the cluster's subnet",
    "mpich": "its own host name on each host (UTS namespace; hydra then starts a proxy per "
             "host), and `UCX_TLS=tcp,self`: UCX finds its peers on the same machine by the "
             "kernel's boot id, whatever the host name, and would take shared memory",
}


class Cluster:
    """A `vcluster.sh --hosts 2` cluster (or what `options` make) for the length of a `with`
    block. vcluster.sh runs a `cat` that holds the cluster up until the runner closes its stdin
    (also when the runner dies), then tears everything down: namespaces, every process in
    them, files. hosts and addrs in vcluster.sh's order; wan_ns the WAN router's namespace
    (with --sites, else "")."""

    def __init__(self, work, options=("--hosts", "2")):
        self.work = work
        self.options = list(options)
        self.proc = None
        self.hosts, self.addrs, self.wan_ns, self.error = [], [], "", None

    def __enter__(self):
        os.makedirs(self.work, exist_ok=True)
        self.log = open(os.path.join(self.work, "vcluster.log"), "w")
        script = ('echo "$VCLUSTER_HOSTS"; echo "$VCLUSTER_ADDRS"; echo "$VCLUSTER_WAN_NS"; '
                  'exec cat >/dev/null')
        try:
            self.proc = subprocess.Popen(["bash", CLUSTER_SCRIPT] + self.options +
                                         ["--", "sh", "-c", script],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=self.log, text=True, start_new_session=True)
        except OSError as e:
            self.error = f"cannot run {CLUSTER_SCRIPT}: {e}"
            return self
        ready, _, _ = select.select([self.proc.stdout], [], [], 60)
        lines = [self.proc.stdout.readline().split() for _ in range(3)] if ready else [[], [], []]
        if len(lines[0]) >= 2 and len(lines[1]) == len(lines[0]):
            self.hosts, self.addrs = lines[0], lines[1]
            self.wan_ns = lines[2][0] if lines[2] else ""
        else:
            self.__exit__(None, None, None)
            with open(self.log.name) as f:
                why = " ".join(f.read().split())
            self.error = (f"no emulated cluster (vcluster.sh exit status "
                          f"{self.proc.returncode}): {why or 'no message'}")[:300]
        return self

    def __exit__(self, *exc):
        if self.proc is None:
            return False
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        for sig in (None, signal.SIGTERM, signal.SIGKILL):
            if sig is not None:
                try:
                    os.killpg(self.proc.pid, sig)
                except ProcessLookupError:
                    pass
            try:
                self.proc.wait(timeout=20)
                break
            except subprocess.TimeoutExpired:
                continue
        self.log.close()
        return False

    def subnet(self):
        return ".".join(self.addrs[0].split(".")[:3]) + ".0/24"

    def counters(self):
        """(bytes, packets) through h1's eth0 so far, both directions, or None."""
        status, out, _, _ = run(["ip", "-n", self.hosts[0], "-s", "-j", "link", "show", "eth0"],
                                timeout=10)
        try:
            s = json.loads(out)[0]["stats64"]
            return (s["tx"]["bytes"] + s["rx"]["bytes"], s["tx"]["packets"] + s["rx"]["packets"])
        except (ValueError, KeyError, IndexError, TypeError):
            return None

    def sweep(self):
        """Ends whatever a run left on the hosts (a hung daemon or server); returns how many
        processes there were."""
        left = 0
        for sig in (signal.SIGTERM, signal.SIGKILL):
            pids = []
            for h in self.hosts:
                _, out, _, _ = run(["ip", "netns", "pids", h], timeout=10)
                pids += [int(p) for p in out.split() if p.isdigit()]
            if sig == signal.SIGTERM:
                left = len(pids)
            for pid in pids:
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    pass
            if not pids:
                break
            time.sleep(1)
        return left


def in_host(host, cmd):
    """cmd on an emulated host, in a UTS namespace named after it (as netns_agent.sh does)."""
    return (["ip", "netns", "exec", host, "unshare", "--uts", "sh", "-c",
             'hostname "$0" && exec "$@"', host] + cmd)


def tcp_launch(mpi, cluster):
    """The launch command of an MPI across the two hosts, up to the program."""
    h1, h2 = cluster.hosts
    if mpi.slug == "metampi":
        bind = ["--bind-to", "none"] if mpi.bind_opts else []
        return mpi.launcher + ["--host", f"{h1}:1,{h2}:1", "--launch-agent",
                               "ip netns exec {host}"] + bind + ["-n", "2"]
    if mpi.slug == "openmpi":
        net = cluster.subnet()
        return in_host(h1, mpi.launcher + [
            "--host", f"{h1},{h2}", "--mca", "plm_rsh_agent", NETNS_AGENT,
            "--mca", "pml", "ob1", "--mca", "btl", "tcp,self",
            "--mca", "btl_tcp_if_include", net, "--mca", "oob_tcp_if_include", net,
            "--bind-to", "none", "-n", "2"])
    return in_host(h1, mpi.launcher + [
        "-hosts", f"{h1},{h2}", "-launcher", "ssh", "-launcher-exec", NETNS_AGENT,
        "-iface", "eth0", "-bind-to", "none", "-genv", "UCX_TLS", "tcp,self", "-n", "2"])


def tcp_launch_text(mpi, cluster):
    """The launch command for the report, with short names (h1, h2, netns_agent.sh)."""
    cmd = tcp_launch(mpi, cluster)
    names = {cluster.hosts[0]: "h1", cluster.hosts[1]: "h2", NETNS_AGENT: "netns_agent.sh",
             mpi.launcher[0]: os.path.basename(mpi.launcher[0])}
    words = []
    for w in cmd:
        for long_, short in names.items():
            w = w.replace(long_, short)
        words.append(f"'{w}'" if re.search(r"[\s$\"{&]", w) else w)
    return " ".join(words)


class LinkCheck:
    """Per contender and program: what crossed h1's eth0 in each run against what the program
    timed (a lower bound of what it must have moved)."""

    def __init__(self):
        self.runs = []    # (link bytes, payload bytes, link packets, messages or 0)

    def add(self, link, pay, packets, messages):
        """Records a run; whether it crossed the link."""
        self.runs.append((link, pay, packets, messages))
        return link >= pay and packets >= messages

    def describe(self):
        if not self.runs:
            return "no run checked"
        ok = sum(1 for l, p, k, m in self.runs if l >= p and k >= m)
        parts = [f"{ok} of {len(self.runs)} runs passed"]
        shares = [l / p for l, p, _, _ in self.runs if p]
        if shares:
            parts.append(f"link / payload ≥ {min(shares):.2f}")
        shares = [k / m for _, _, k, m in self.runs if m]
        if shares:
            parts.append(f"packets / messages ≥ {min(shares):.2f}")
        parts.append(f"up to {human_bytes_si(max(l for l, _, _, _ in self.runs))} per run")
        return "; ".join(parts)


def human_bytes_si(n):
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"


def raw_iterations(size, latency):
    """raw_tcp.c's schedule (iters()), to know what it moved."""
    if latency:
        return 10000 if size <= 16384 else (256 << 20) // size + 100
    return 1000 if size <= 16384 else (1 << 30) // (size * RAW_WINDOW) + 20


def raw_sizes():
    sizes, b = [], 1
    while b <= RAW_MAX:
        sizes.append(b)
        b *= 2
    return sizes


def parse_tcp_mpi(out, program):
    """{bytes: (iterations, value)}: latency in µs, bandwidth in MB/s (10^6 B)."""
    pat = (r"^(\d+) (\d+) ([\d.]+)$" if program == "latency" else
           r"^(\d+) (\d+) ([\d.]+) [\d.]+$")
    return {int(m.group(1)): (int(m.group(2)), float(m.group(3)))
            for m in re.finditer(pat, out, re.M)}


def payload(program, counts, window=64):
    """(bytes, messages) timed by a run: counts {bytes: iterations}. Ping-pong: every round
    trip is two messages, each at least a packet; stream: windows of `window` messages
    (which TCP may coalesce, so only the bytes are checked)."""
    if program == "latency":
        return (sum(2 * b * n for b, n in counts.items()),
                sum(2 * n for n in counts.values()))
    return sum(window * b * n for b, n in counts.items()), 0


class TcpRun:
    """Everything the TCP section measured: results[program][slug] (P2pResult; iperf3 under
    size 0), checks[program][slug] (LinkCheck), failures {(slug, program): why}."""

    def __init__(self, slugs):
        self.results = {p: {s: P2pResult() for s in slugs + [RAW]} for p in P2P}
        self.results["bandwidth"][IPERF] = P2pResult()
        self.checks = {p: {s: LinkCheck() for s in self.results[p]} for p in P2P}
        self.failures = {}
        self.commands = {}          # slug -> launch command text
        self.error = None           # why nothing was measured
        self.left_behind = 0        # processes swept from the hosts after runs
        self.iperf_retransmits = []


def tcp_record(tr, cluster, program, slug, status, out, err, values, sizes, counts, seconds,
               before, extra=None):
    """Common end of every TCP run: link check, results, failure note, progress line."""
    after = cluster.counters()
    left = cluster.sweep()
    tr.left_behind += left
    result = tr.results[program][slug]
    complete = status == 0 and all(b in values for b in sizes)
    crossed = True
    if before is not None and after is not None and counts:
        link, packets = after[0] - before[0], after[1] - before[1]
        pay, messages = payload(program, counts) if extra is None else extra
        crossed = tr.checks[program][slug].add(link, pay, packets, messages)
        if not crossed:
            tr.failures[(slug, program)] = (
                f"its traffic did not cross the link: {human_bytes_si(link)} and {packets} "
                f"packets on h1's eth0 for {human_bytes_si(pay)} of payload in "
                f"{messages or 'n/a'} messages; results discarded")
    if crossed:
        result.add_run(values, complete, sizes)
    if not complete and (slug, program) not in tr.failures:
        tr.failures[(slug, program)] = (
            f"failed from {human_bytes(result.failed_from)} on (exit status {status}): "
            f"{first_error_line(err + out)}")
    if not crossed:
        result.failed_from = sizes[0]
    name = TCP_NAMES.get(slug, slug)
    ok = complete and crossed
    print(f"    {program:9} {name:8} {seconds:6.1f} s "
          f"{'ok' if ok else 'FAILED: ' + tr.failures[(slug, program)]}"
          + (f" ({left} processes left on the hosts, ended)" if left else ""), flush=True)


def tcp_mpi_once(tr, cluster, mpi, program, args):
    sizes = expected_sizes(args.max_bytes)
    cmd = tcp_launch(mpi, cluster) + [mpi.programs[program], str(args.max_bytes),
                                      str(args.scale)]
    note_load(args, args.tcp_busy)
    before = cluster.counters()
    status, out, err, seconds = run(cmd, args.timeout)
    parsed = parse_tcp_mpi(out, program)
    values = {b: v for b, (_, v) in parsed.items()}
    counts = {b: n for b, (n, _) in parsed.items()}
    tcp_record(tr, cluster, program, mpi.slug, status, out, err, values, sizes, counts, seconds,
               before)


def server_listening(host, port, deadline):
    while time.perf_counter() < deadline:
        _, out, _, _ = run(["ip", "netns", "exec", host, "ss", "-Hltn", "sport", "=",
                            f":{port}"], timeout=10)
        if out.strip():
            return True
        time.sleep(0.05)
    return False


def client_server(cluster, server, client, port, timeout, hosts=None):
    """Starts server on h2, waits until it listens, runs client on h1 (or on hosts =
    (client host, server host)); returns the client's (status, stdout, stderr, seconds) and
    the server's stderr. The server is ended if it outlives the client by 10 s."""
    client_host, server_host = hosts or (cluster.hosts[0], cluster.hosts[1])
    env = dict(os.environ)
    srv = subprocess.Popen(["ip", "netns", "exec", server_host] + server, env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL, text=True, start_new_session=True)
    if not server_listening(server_host, port, time.perf_counter() + 10):
        _, serr = kill_group(srv)
        return 1, "", f"server did not listen on port {port}: {serr}", 0.0
    result = run(["ip", "netns", "exec", client_host] + client, timeout)
    try:
        _, serr = srv.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        _, serr = kill_group(srv)
    status, out, err, seconds = result
    return status, out, err + (serr or ""), seconds


def tcp_raw_once(tr, cluster, program, args):
    raw = os.path.join(args.build_dir, "bench", "raw_tcp")
    sizes = [b for b in raw_sizes() if b <= args.max_bytes]
    note_load(args, args.tcp_busy)
    before = cluster.counters()
    status, out, err, seconds = client_server(
        cluster, [raw, "server", str(RAW_PORT)],
        [raw, "client", cluster.addrs[1], str(RAW_PORT), program], RAW_PORT, args.timeout)
    values = {int(m.group(1)): float(m.group(2))
              for m in re.finditer(r"^(\d+) ([\d.]+)$", out, re.M)}
    lat = program == "latency"
    counts = {b: raw_iterations(b, lat) for b in values}
    tcp_record(tr, cluster, program, RAW, status, out, err,
               {b: v for b, v in values.items() if b <= args.max_bytes}, sizes, counts,
               seconds, before, extra=payload(program, counts, RAW_WINDOW))


def tcp_iperf_once(tr, cluster, args):
    seconds_ = max(1, round(IPERF_SECONDS * args.scale))
    note_load(args, args.tcp_busy)
    before = cluster.counters()
    status, out, err, seconds = client_server(
        cluster, ["iperf3", "-s", "-1", "-p", str(IPERF_PORT)],
        ["iperf3", "-c", cluster.addrs[1], "-p", str(IPERF_PORT), "-t", str(seconds_), "-J"],
        IPERF_PORT, args.timeout)
    values, sent = {}, 0
    try:
        doc = json.loads(out)
        end = doc["end"]
        values = {0: end["sum_received"]["bits_per_second"] / 8e6}
        sent = int(end["sum_received"]["bytes"])   # what surely crossed
        tr.iperf_retransmits.append(end["sum_sent"].get("retransmits"))
    except (ValueError, KeyError, TypeError):
        m = re.search(r'"error":\s*"([^"]*)"', out)
        err += f" iperf3: {m.group(1) if m else 'no result'}"
    tcp_record(tr, cluster, "bandwidth", IPERF, status, out, err, values, [0],
               {0: 1} if sent else {}, seconds, before, extra=(sent, 0))


def measure_tcp(mpis, args):
    """TcpRun: every round runs, per program, each MPI, raw TCP (and iperf3 for bandwidth),
    taking turns as in the point-to-point section, on one cluster made for the section."""
    tr = TcpRun([m.slug for m in mpis])
    args.tcp_busy = []
    began = time.perf_counter()
    if not os.path.exists(os.path.join(args.build_dir, "bench", "raw_tcp")):
        for p in P2P:
            tr.failures[(RAW, p)] = "not available: <build>/bench/raw_tcp is missing"
    with Cluster(os.path.join(args.work, "tcp")) as cluster:
        if cluster.error:
            tr.error = cluster.error
            print(f"  between two hosts: NOT MEASURED: {tr.error}", flush=True)
            args.tcp_elapsed = time.perf_counter() - began
            return tr
        print(f"  emulated hosts {' '.join(cluster.hosts)} ({' '.join(cluster.addrs)})",
              flush=True)
        tr.commands = {m.slug: tcp_launch_text(m, cluster) for m in mpis}
        for rnd in range(args.rounds):
            for program in P2P:
                order = [m for m in mpis] + [RAW] + ([IPERF] if program == "bandwidth" else [])
                for who in rotated(order, rnd):
                    slug = who if isinstance(who, str) else who.slug
                    if tr.results[program][slug].failed_from is not None or \
                            (slug, program) in tr.failures:
                        continue
                    if who == RAW:
                        tcp_raw_once(tr, cluster, program, args)
                    elif who == IPERF:
                        tcp_iperf_once(tr, cluster, args)
                    elif program in who.programs:
                        tcp_mpi_once(tr, cluster, who, program, args)
            print(f"  between two hosts: round {rnd + 1}/{args.rounds} done", flush=True)
    args.tcp_elapsed = time.perf_counter() - began
    return tr


def tcp_value(tr, program, slug, b):
    r = tr.results[program].get(slug)
    return None if r is None else r.median(b)


def tcp_targets(tr, max_bytes):
    """The two targets of the multi-host issue, as (name, (verdict, details))."""
    lat_name = (f"{TCP_TARGET_PREFIX}: latency 0–{TCP_SMALL} B within "
                f"{TCP_LAT_LIMIT - 1:.0%} of raw TCP ping-pong (1–{TCP_SMALL} B; 0 B against "
                "1 B) and below Open MPI's and MPICH's")
    bw_name = (f"{TCP_TARGET_PREFIX}: bandwidth {human_bytes(TCP_LARGE)}–"
               f"{human_bytes(max_bytes if max_bytes >= TCP_LARGE else MAX_BYTES)} at least "
               f"{TCP_BW_SHARE:.0%} of iperf3 "
               "(one TCP stream)")
    if tr.error:
        why = f"not measured: {tr.error}"
        return [(lat_name, ("not evaluated", why)), (bw_name, ("not evaluated", why))]

    # (a) latency
    raw_r, peer_r, missing = [], [], []
    for b in [b for b in expected_sizes(max_bytes) if b <= TCP_SMALL]:
        mine = tcp_value(tr, "latency", "metampi", b)
        raw = tcp_value(tr, "latency", RAW, max(b, 1))
        peers = [v for v in (tcp_value(tr, "latency", s, b) for s in ("openmpi", "mpich"))
                 if v is not None]
        if mine is None:
            missing.append(f"metampi at {human_bytes(b)}")
            continue
        if raw is None:
            missing.append(f"raw TCP at {human_bytes(max(b, 1))}")
        else:
            raw_r.append((mine / raw, b))
        if peers:
            peer_r.append((mine / min(peers), b))
        else:
            missing.append(f"peers at {human_bytes(b)}")
    parts = []
    if raw_r:
        w = max(raw_r)
        parts.append(f"worst {human_bytes(w[1])}: metampi {w[0]:.2f}× raw TCP")
    if peer_r:
        w = max(peer_r)
        parts.append(f"worst {human_bytes(w[1])}: metampi {describe_slowdown(w[0])} the "
                     "better peer")
    if missing:
        parts.append("missing: " + ", ".join(missing))
    over = any(r > TCP_LAT_LIMIT for r, _ in raw_r) or any(r >= 1 for r, _ in peer_r)
    metampi_failed = any(s == "metampi" and p == "latency" for s, p in tr.failures)
    lat = ("not met" if over or metampi_failed else
           "not evaluated" if missing or not raw_r else "met")

    # (b) bandwidth
    iperf = tcp_value(tr, "bandwidth", IPERF, 0)
    shares, missing = [], []
    for b in [b for b in expected_sizes(max_bytes) if b >= TCP_LARGE]:
        mine = tcp_value(tr, "bandwidth", "metampi", b)
        if mine is None:
            missing.append(f"metampi at {human_bytes(b)}")
        elif iperf:
            shares.append((mine / iperf, b))
    if not iperf:
        missing.append("iperf3")
    if max_bytes < TCP_LARGE:
        missing.append(f"no size of {human_bytes(TCP_LARGE)} or more (--max-bytes)")
    parts_b = []
    if shares:
        w = min(shares)
        parts_b.append(f"worst {human_bytes(w[1])}: metampi {w[0]:.0%} of iperf3 "
                       f"({fmt(tcp_value(tr, 'bandwidth', 'metampi', w[1]), 0)} vs "
                       f"{fmt(iperf, 0)} MB/s)")
    if missing:
        parts_b.append("missing: " + ", ".join(missing))
    metampi_failed = any(s == "metampi" and p == "bandwidth" for s, p in tr.failures)
    bw = ("not met" if any(s < TCP_BW_SHARE for s, _ in shares) or metampi_failed else
          "not evaluated" if missing or not shares else "met")
    return [(lat_name, (lat, "; ".join(parts) or "no results")),
            (bw_name, (bw, "; ".join(parts_b) or "no results"))]


def plot_tcp(tr, mpis, perfdir, max_bytes):
    plt = pyplot()
    os.makedirs(perfdir, exist_ok=True)
    for program, ylabel, title, name in (
            ("latency", "one-way latency, median (µs)",
             "Ping-pong latency between two hosts over TCP, 1 rank per host (lower is better)",
             "tcp_latency.png"),
            ("bandwidth", "bandwidth, median (MB/s)",
             "Streaming bandwidth between two hosts over TCP, window of 64 (higher is better)",
             "tcp_bandwidth.png")):
        fig, ax = plt.subplots(figsize=(9, 5))
        sizes = []
        lines = [(m.slug, m.name, STYLES[m.slug], "-") for m in mpis] + \
                [(RAW, TCP_NAMES[RAW], TCP_STYLES[RAW], "--")]
        for slug, label, (color, marker), style in lines:
            r = tr.results[program][slug]
            pts = [(b, r.median(b)) for b in sorted(r.samples) if 0 < b <= max_bytes]
            pts = [(b, v) for b, v in pts if v is not None]
            if pts:
                ax.plot(*zip(*pts), marker=marker, color=color, linestyle=style, label=label)
                sizes = sorted(set(sizes) | {b for b, _ in pts})
        iperf = tcp_value(tr, "bandwidth", IPERF, 0)
        if program == "bandwidth" and iperf:
            ax.axhline(iperf, color=TCP_STYLES[IPERF][0], linestyle=":",
                       label=f"iperf3, one stream ({iperf:.0f} MB/s)")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        if sizes:
            ax.set_xticks(sizes[::2])
            ax.set_xticklabels([human_bytes(b).replace(" ", "\n") for b in sizes[::2]])
        ax.set(xlabel="message size", ylabel=ylabel, title=title)
        if tr.error:
            ax.text(0.5, 0.5, "not measured", transform=ax.transAxes, ha="center")
        finish(plt, fig, ax, os.path.join(perfdir, name))
    return [os.path.join(perfdir, n) for n in ("tcp_latency.png", "tcp_bandwidth.png")]


def tcp_section(tr, mpis, args):
    """The TCP part of the document, between TCP_BEGIN and TCP_END; it says when and how it was
    measured itself, since --only tcp replaces it alone."""
    busy = args.tcp_busy
    load = ("not measured" if not busy else
            f"median {statistics.median(busy):.0%}, worst {max(busy):.0%} of the CPUs" +
            (" — **the machine was busy: these numbers are not reliable** (the MPIs poll "
             "while they wait, raw TCP and iperf3 sleep in the kernel, so sharing the cores "
             "with other work costs the MPIs far more)" if max(busy) > 0.10 else ""))
    quick = (" **Development run** (reduced settings): not for publication."
             if args.scale < 1 or args.rounds < 3 else "")
    lines = [TCP_BEGIN, "## Between two hosts (TCP)", "",
             "One rank on each of two *emulated hosts*: network namespaces `h1` and `h2` made by "
             "`tests/cluster/vcluster.sh --hosts 2` for this section (and torn down after it), "
             "each with one interface `eth0` (10.0.0.1, 10.0.0.2) on a veth pair to a bridge, "
             "not rate-limited, MTU 1500. Both hosts are on this machine, so the \"link\" is "
             "the kernel's TCP/IP stack over veth: its cost is CPU time on the same 2 cores the "
             "ranks run on, not a wire. Nothing is pinned (`--bind-to none`: the hosts share "
             "the cores).", "",
             "- The same `bench/p2p/latency.c` and `bandwidth.c` as above (OSU method, each MPI's "
             "own wrapper and launcher), against the limits: `bench/tcp/raw_tcp` (the same "
             "ping-pong and window-of-64 stream over one TCP connection, `TCP_NODELAY`, "
             "blocking sockets, no framing; sizes from 1 B) and iperf3 (one TCP stream, "
             f"`iperf3 -s -1` on h2, `iperf3 -c 10.0.0.2 -t {max(1, round(IPERF_SECONDS * args.scale))} -J` "
             "on h1; its receiver's rate). raw TCP and iperf3 are server on h2, client on h1.",
             f"- Measured {report_date()}"
             f", commit {source_commit()}: **{args.rounds} rounds**, metampi, Open MPI, MPICH, "
             "raw TCP (and iperf3) taking turns within each, in rotating order; **median over "
             f"the rounds**; {args.tcp_elapsed / 60:.1f} minutes; {args.timeout} s timeout per "
             f"run; other load just before each run: {load}. {iperf_version()}."
             + quick,
             "- A failure here (a program that crashes, hangs, or whose traffic did not cross "
             "the link) is reported in the tables and never changes the runner's exit status.",
             ""]
    if tr.error:
        lines += [f"**Not measured:** {tr.error}", ""]
    else:
        lines += ["| MPI | launch command | what makes it use the link |", "|---|---|---|"]
        lines += [f"| {m.name} | `{tr.commands.get(m.slug, '')}` | {TCP_HOW[m.slug]} |"
                  for m in mpis]
        lines += ["", "`netns_agent.sh` (bench/tcp/) is the peers' ssh: it runs the launcher's "
                  "command on the host (`ip netns exec HOST`) in a UTS namespace of its own named "
                  "after the host; their mpirun runs on h1 the same way, so that its daemons "
                  "reach it over the cluster's network.", "",
                  "**Checked on every run:** the bytes through h1's `eth0` during the run "
                  "(`ip -s link`, both directions) must be at least the payload the program "
                  "timed (latency: 2 × size × round trips, bandwidth: 64 × size × windows, "
                  "summed over the sizes; iperf3: the bytes its receiver got), and for the ping-pong the "
                  "packets at least the timed messages (2 per round trip: the messages cannot "
                  "share packets). A run that fails the check is discarded and the contender "
                  "*failed*.", "",
                  "| | latency | bandwidth |", "|---|---|---|"]
        for slug, name in [(m.slug, m.name) for m in mpis] + [(RAW, "raw TCP"),
                                                               (IPERF, "iperf3")]:
            cells = [tr.checks[p][slug].describe() if slug in tr.checks[p] else "—"
                     for p in P2P]
            lines.append(f"| {name} | {cells[0]} | {cells[1]} |")
        if tr.left_behind:
            lines += ["", f"{tr.left_behind} processes were left on the hosts after runs "
                          "(and ended before the next)."]
        lines.append("")
    verdicts = tcp_targets(tr, args.max_bytes)
    lines += ["| Target | Status | Details |", "|---|---|---|"]
    lines += [f"| {name} | **{verdict}** | {worst} |" for name, (verdict, worst) in verdicts]
    if not tr.error:
        lines += [""] + tcp_tables(tr, mpis, args)
        lines += ["![latency between two hosts](perf/tcp_latency.png)",
                  "![bandwidth between two hosts](perf/tcp_bandwidth.png)"]
    return lines + ["", TCP_END, ""]


def tcp_notes(tr, mpis, program):
    notes, texts = {}, []
    for slug, name in [(m.slug, m.name) for m in mpis] + [(RAW, "raw TCP"), (IPERF, "iperf3")]:
        m = next((m for m in mpis if m.slug == slug), None)
        why = (f"not available: {m.unavailable[program]}" if m and program in m.unavailable
               else tr.failures.get((slug, program)))
        if why:
            texts.append(f"{name}: {why}".replace("|", "/").replace("\n", " "))
            notes[slug] = len(texts)
    return notes, texts


def tcp_tables(tr, mpis, args):
    lines = []
    for program in P2P:
        lat = program == "latency"
        notes, texts = tcp_notes(tr, mpis, program)
        iperf = tcp_value(tr, "bandwidth", IPERF, 0)

        def cell(slug, b):
            v = tcp_value(tr, program, slug, b)
            if v is not None:
                return f"{v:.2f}" if lat else f"{v:.1f}"
            if slug == RAW and b == 0:
                return "n/a"
            return f"— [{notes[slug]}]" if slug in notes else "—"

        if lat:
            lines += ["### Ping-pong latency between two hosts", "",
                      "One-way latency in µs (half the mean round trip), **lower is better**. "
                      "metampi / raw TCP: within the target at ≤ "
                      f"{TCP_LAT_LIMIT:.2f} (0 B is compared with raw TCP's 1 B); metampi / "
                      "better peer: below 1 means metampi is faster than both Open MPI and "
                      "MPICH.", "",
                      "| size | metampi | Open MPI | MPICH | raw TCP | metampi / raw TCP | "
                      "metampi / better peer |", "|---:|---:|---:|---:|---:|---:|---:|"]
            sizes = expected_sizes(args.max_bytes)
        else:
            lines += ["### Streaming bandwidth between two hosts", "",
                      "MB/s (10^6 B), **higher is better**. iperf3, one TCP stream: "
                      + (f"**{iperf:.0f} MB/s** ({iperf * 8 / 1e3:.2f} Gbit/s)" if iperf else
                         f"— [{notes[IPERF]}]" if IPERF in notes else "—")
                      + ". metampi / iperf3: the target is ≥ "
                      f"{TCP_BW_SHARE:.2f} from {human_bytes(TCP_LARGE)}; metampi / better peer: "
                      "above 1 means metampi is faster than both.", "",
                      "| size | metampi | Open MPI | MPICH | raw TCP | metampi / raw TCP | "
                      "metampi / better peer | metampi / iperf3 |",
                      "|---:|---:|---:|---:|---:|---:|---:|---:|"]
            sizes = [b for b in expected_sizes(args.max_bytes) if b > 0]
        for b in sizes:
            mine = tcp_value(tr, program, "metampi", b)
            raw = tcp_value(tr, program, RAW, max(b, 1))
            peers = [v for v in (tcp_value(tr, program, s, b) for s in ("openmpi", "mpich"))
                     if v is not None]
            best = (min(peers) if lat else max(peers)) if peers else None
            row = (f"| {human_bytes(b)} | " +
                   " | ".join(cell(s, b) for s in [m.slug for m in mpis] + [RAW]) +
                   f" | {'n/a' if mine is None or not raw else f'{mine / raw:.2f}'}"
                   f" | {'n/a' if mine is None or not best else f'{mine / best:.2f}'} |")
            if not lat:
                row += f" {'n/a' if mine is None or not iperf else f'{mine / iperf:.2f}'} |"
            lines.append(row)
        lines += [""] + [f"[{i}] {t}  " for i, t in enumerate(texts, 1)] + ([""] if texts else [])
    return lines


# --- ratios and targets -------------------------------------------------------------------

def best_peer(values, higher_is_better):
    """The better of Open MPI and MPICH (None if neither has a value)."""
    peers = [v for v in (values.get("openmpi"), values.get("mpich")) if v is not None]
    if not peers:
        return None
    return max(peers) if higher_is_better else min(peers)


def row_values(results, program, b):
    return {slug: r.median(b) for slug, r in results[program].items()}


def ratio_to_best(results, program, b):
    """metampi / better peer at size b, or None."""
    values = row_values(results, program, b)
    best = best_peer(values, program == "bandwidth")
    if values["metampi"] is None or not best:
        return None
    return values["metampi"] / best


def slowdown(results, program, b):
    """How many times slower metampi is than the better peer (>1: slower), or None."""
    r = ratio_to_best(results, program, b)
    if r is None:
        return None
    return r if program == "latency" else (1 / r if r else float("inf"))


def check_target(results, checks, limit):
    """checks: [(program, bytes)]. Met iff metampi's slowdown <= limit at every one.
    Returns (verdict, worst) with worst describing the worst size or what is missing."""
    slow, no_metampi, no_peer = [], [], []
    for program, b in checks:
        s = slowdown(results, program, b)
        if results[program]["metampi"].median(b) is None:
            no_metampi.append((program, b))
        elif s is None:
            no_peer.append((program, b))
        else:
            slow.append((s, program, b))
    worst = max(slow) if slow else None
    gaps = describe_gaps(results, no_metampi, no_peer)
    if worst and worst[0] > limit:
        return "not met", describe_worst(worst) + gaps
    if any(results[p]["metampi"].failed_from is not None for p, _ in no_metampi):
        return "not met", gaps[2:]
    if no_metampi or not worst:
        return "not evaluated", (describe_worst(worst) if worst else "no results") + gaps
    return "met", describe_worst(worst) + gaps


def describe_worst(worst):
    s, program, b = worst
    return f"{program} at {human_bytes(b)}: metampi {describe_slowdown(s)} the better peer"


def describe_gaps(results, no_metampi, no_peer):
    """'; metampi bandwidth not available' and the like, or ''."""
    parts = []
    for program in P2P:
        if any(p == program for p, _ in no_metampi):
            r = results[program]["metampi"]
            parts.append(f"metampi {program} " + ("not available" if r.failed_from is None else
                                                   f"failed from {human_bytes(r.failed_from)}"))
        sizes = [b for p, b in no_peer if p == program]
        if sizes:
            parts.append(f"no peer {program} at {', '.join(human_bytes(b) for b in sizes)}")
    return "".join("; " + p for p in parts)


def describe_slowdown(s):
    return f"{s:.2f}× slower than" if s > 1 else f"{1 / s:.2f}× faster than"


def targets(results, max_bytes):
    sizes = expected_sizes(max_bytes)
    small = [b for b in sizes if b <= 8]
    large = [b for b in sizes if b >= 1 << 20]
    return [
        ("Latency 0–8 B at or below the better of Open MPI and MPICH",
         check_target(results, [("latency", b) for b in small], 1.0)),
        ("Bandwidth 1–4 MiB at or above the better peer",
         check_target(results, [("bandwidth", b) for b in large], 1.0)),
        (f"No size 0 B–4 MiB more than {SLOWDOWN_LIMIT}× slower than the better peer "
         "(latency and bandwidth)",
         check_target(results, [(p, b) for p in P2P for b in sizes], SLOWDOWN_LIMIT)),
    ]


# --- formatting ---------------------------------------------------------------------------

def fmt(value, digits):
    return "failed" if value is None else f"{value:.{digits}f}"


def human_bytes(n):
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n // scale} {unit}"
    return f"{n} B"


def first_line(cmd, pattern=None):
    _, out, err, _ = run(cmd, timeout=30)
    for line in (out + err).splitlines():
        if line.strip() and (pattern is None or re.search(pattern, line)):
            return " ".join(line.split())
    return "unknown"


def package_version(pkg):
    return first_line(["dpkg-query", "-W", "-f=${Version}", pkg])


# What the report says about the run besides its results (which commit, when, the machine,
# iperf3's version, how long it took): taken once while measuring and saved with the raw
# results, so that a report made again from them (--from-results) is the same document.
CONTEXT = {}


def from_context(key, compute):
    if key not in CONTEXT:
        CONTEXT[key] = compute()
    return CONTEXT[key]


def source_commit():
    """The commit measured, as it was when the runner started (main() asks first): later the
    runner's own plots make the work tree look modified."""
    return from_context("commit", lambda: first_line(["git", "-C", HERE, "describe", "--always",
                                                      "--dirty"]))


def report_date():
    return from_context("date", lambda: datetime.datetime.now().astimezone().strftime(
        "%Y-%m-%d %H:%M %Z"))


def iperf_version():
    return from_context("iperf3", lambda: first_line(["iperf3", "--version"]))


def machine_description(build):
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"^model name\s*:\s*(.+)$", f.read(), re.M)
            cpu = m.group(1).strip() if m else cpu
    except OSError:
        pass
    commit = source_commit()
    mpicc = os.path.join(build, "bin", "mpicc")
    return [
        ("Date", report_date()),
        ("CPU", cpu),
        ("nproc", str(os.cpu_count())),
        ("Kernel", f"{platform.system()} {platform.release()}"),
        ("Compiler", first_line([mpicc, "--version"])),
        ("metampi", f"{first_line([mpicc, '-showme:version'])}, commit {commit}"),
        ("Open MPI", f"{first_line(['ompi_info', '--version'])} "
                     f"(Debian openmpi-bin {package_version('openmpi-bin')})"),
        ("MPICH", f"{first_line(['mpichversion'], r'Version')}, "
                  f"{first_line(['mpichversion'], r'Device')} "
                  f"(Debian mpich {package_version('mpich')})"),
    ]


# --- plots --------------------------------------------------------------------------------

def pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def plot(startup, results, mpis, perfdir, nc=None, coll=None):
    plt = pyplot()
    os.makedirs(perfdir, exist_ok=True)
    if coll is not None:
        plot_colls(plt, coll, mpis, perfdir)
    plot_startup(plt, startup, mpis, os.path.join(perfdir, "startup.png"))
    plot_p2p(plt, results, mpis, "latency", "one-way latency, median (µs)",
             "Ping-pong latency, 2 ranks pinned to 2 cores (lower is better)",
             os.path.join(perfdir, "latency.png"))
    plot_p2p(plt, results, mpis, "bandwidth", "bandwidth, median (MB/s)",
             "Streaming bandwidth, window of 64, 2 ranks (higher is better)",
             os.path.join(perfdir, "bandwidth.png"))
    if nc is not None:
        plot_noncontig(plt, nc, mpis, os.path.join(perfdir, "noncontig.png"))


def coll_plot_name(np):
    return f"coll_{np}ranks.png"


def plot_colls(plt, coll, mpis, perfdir):
    """One figure per rank count: a panel per collective, latency by size on log-log axes
    (Barrier, which has no size, as bars)."""
    for np in COLL_NP:
        fig, axes = plt.subplots(2, 3, figsize=(16, 9))
        for ax, c in zip(axes.flat, COLLS):
            if c == "barrier":
                vals = [coll[np][c][m.slug].median(0) for m in mpis]
                ax.bar([m.name for m in mpis], [v or 0 for v in vals],
                       color=[STYLES[m.slug][0] for m in mpis])
                for x, v in enumerate(vals):
                    ax.annotate("n/a" if v is None else f"{v:.2f}", (x, v or 0),
                                ha="center", va="bottom")
                ax.set(ylabel="latency, median (µs)", title=COLL_TITLES[c])
                ax.grid(True, axis="y", alpha=0.3)
                continue
            sizes = []
            for m in mpis:
                pts = [(b, coll[np][c][m.slug].median(b)) for b in sorted(coll[np][c][m.slug].samples)]
                pts = [(b, v) for b, v in pts if v is not None]
                if pts:
                    color, marker = STYLES[m.slug]
                    ax.plot(*zip(*pts), marker=marker, color=color, label=m.name)
                    sizes = sorted(set(sizes) | {b for b, _ in pts})
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            if sizes:
                ax.set_xticks(sizes)
                ax.set_xticklabels([human_bytes(b).replace(" ", "\n") for b in sizes])
            ax.set(xlabel="bytes per rank" if c in ("allgather", "alltoall") else "message size",
                   ylabel="latency, median (µs)", title=COLL_TITLES[c])
            ax.grid(True, which="both", alpha=0.3)
            if ax.get_legend_handles_labels()[0]:
                ax.legend()
        fig.suptitle(f"Collective latency, {np} ranks "
                     f"{'one per core' if np <= 2 else 'on 2 cores (oversubscribed)'}"
                     " (lower is better)")
        fig.tight_layout()
        fig.savefig(os.path.join(perfdir, coll_plot_name(np)), dpi=110)
        plt.close(fig)


def plot_noncontig(plt, nc, mpis, path):
    """One panel per vector run (bandwidth by block size; dotted: each MPI's contiguous
    bandwidth of the same bytes), and one with the faces."""
    vec_runs = [label for label, _ in NC_RUNS if label.startswith("vector")]
    fig, axes = plt.subplots(1, len(vec_runs) + 1, figsize=(6 * (len(vec_runs) + 1), 5))
    for ax, label in zip(axes, vec_runs):
        blocks = []
        for m in mpis:
            color, marker = STYLES[m.slug]
            pts = [(k[1], nc[label][m.slug].median(k)) for k in nc_keys(nc, label)
                   if k[0] == "vector"]
            pts = [(b, v) for b, v in pts if v is not None]
            if pts:
                ax.plot(*zip(*pts), marker=marker, color=color, label=m.name)
                blocks = sorted(set(blocks) | {b for b, _ in pts})
            contig = [nc[label][m.slug].median(k) for k in nc_keys(nc, label) if k[0] == "contig"]
            if contig and contig[0] is not None:
                ax.axhline(contig[0], color=color, linestyle=":", linewidth=1)
        ax.set_xscale("log", base=2)
        if blocks:
            ax.set_xticks(blocks[::2])
            ax.set_xticklabels([human_bytes(b).replace(" ", "\n") for b in blocks[::2]])
        ax.set(xlabel="block size (every other block sent)", ylabel="bandwidth, median (MB/s)",
               title=f"Strided vector, {label[7:]} per message")
        ax.grid(True, which="both", alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend()
    ax = axes[-1]
    label = next(label for label, _ in NC_RUNS if label.startswith("faces"))
    keys = nc_keys(nc, label)
    width = 0.8 / max(len(mpis), 1)
    for i, m in enumerate(mpis):
        color, _ = STYLES[m.slug]
        vals = [nc[label][m.slug].median(k) or 0 for k in keys]
        ax.bar([x + i * width for x in range(len(keys))], vals, width, color=color,
               label=m.name)
    ax.set_xticks([x + width * (len(mpis) - 1) / 2 for x in range(len(keys))])
    ax.set_xticklabels([k[0] for k in keys])
    ax.set(ylabel="bandwidth, median (MB/s)", title=f"3-D halo faces ({label[6:]} doubles)")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_startup(plt, startup, mpis, path):
    fig, ax = plt.subplots(figsize=(8, 5))
    for m in mpis:
        points = [(np, t) for np, t in startup[m.slug].items() if t is not None]
        if points:
            color, marker = STYLES[m.slug]
            ax.plot(*zip(*points), marker=marker, color=color, label=m.name)
    ax.set_yscale("log")   # the launchers differ by orders of magnitude
    ax.set(xlabel="processes (mpirun -n)", ylabel="wall time of mpirun, median (s)",
           title="Startup: mpirun -n N init_finalize", xticks=STARTUP_NP)
    finish(plt, fig, ax, path)


def plot_p2p(plt, results, mpis, program, ylabel, title, path):
    """Log-log; 0 B has no place on a log axis and is left out of the plot."""
    fig, ax = plt.subplots(figsize=(9, 5))
    sizes = []
    for m in mpis:
        points = [(b, display_value(program, b, results[program][m.slug].median(b)))
                  for b in sorted(results[program][m.slug].samples) if b > 0]
        points = [(b, v) for b, v in points if v is not None]
        if points:
            color, marker = STYLES[m.slug]
            ax.plot(*zip(*points), marker=marker, color=color, label=m.name)
            sizes = sorted(set(sizes) | {b for b, _ in points})
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    if sizes:
        ticks = sizes[::2]
        ax.set_xticks(ticks)
        ax.set_xticklabels([human_bytes(b).replace(" ", "\n") for b in ticks])
    ax.set(xlabel="message size", ylabel=ylabel, title=title)
    finish(plt, fig, ax, path)


def finish(plt, fig, ax, path):
    ax.grid(True, which="both", alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def display_value(program, b, value):
    """Latency in µs; bandwidth in MB/s from the message rate (None stays None)."""
    if value is None or program == "latency":
        return value
    return value * b / 1e6


# --- the document -------------------------------------------------------------------------

def markdown(startup, results, mpis, machine, args, verdicts, elapsed, nc=None, coll=None,
             tcp=None, wan=None):
    lines = header(machine, mpis, args, elapsed)
    lines += targets_section(verdicts)
    lines += p2p_section(results, mpis, "latency", args)
    lines += p2p_section(results, mpis, "bandwidth", args)
    if nc is not None:
        lines += noncontig_section(nc, mpis)
    if tcp is not None:
        lines += tcp_section(tcp, mpis, args)
    if wan is not None:
        from wan import report as wan_report
        lines += wan_report.section(wan, mpis, args)
    if coll is not None:
        lines += coll_section(coll, mpis, args)
    lines += startup_section(startup, mpis, args)
    return "\n".join(lines) + "\n"


def coll_launch(m, np):
    cmd = [os.path.basename(m.launcher[0])] + m.launcher[1:] + m.coll_opts(np) + ["-n", str(np)]
    return f"`{' '.join(cmd)} ./coll_latency`"


def coll_section(coll, mpis, args):
    """The collective part of the document, between COLL_BEGIN and COLL_END. It says when and
    how it was measured itself, since --only coll replaces it alone."""
    busy = args.coll_busy
    load = ("not measured" if not busy else
            f"median {statistics.median(busy):.0%}, worst {max(busy):.0%} of the CPUs" +
            (" — **the machine was busy: these numbers are not reliable**"
             if max(busy) > 0.10 else ""))
    quick = (" **Development run** (reduced settings): not for publication."
             if args.scale < 1 or args.coll_rounds < 3 else "")
    lines = [COLL_BEGIN, "## Collective latency", "",
             "`bench/coll/coll_latency.c`, OSU method (osu_barrier, osu_bcast, osu_reduce, "
             "osu_allreduce, osu_allgather, osu_alltoall) on MPI_COMM_WORLD, root 0: "
             "MPI_Bcast of N `MPI_CHAR`; MPI_Reduce and MPI_Allreduce of N/4 `MPI_FLOAT` with "
             "`MPI_SUM`; MPI_Allgather and MPI_Alltoall of N `MPI_CHAR` per rank (so N × ranks "
             "bytes in each receive buffer); N = 4 B, 16 B, ... 1 MiB. Each rank times every "
             "call alone and waits in a barrier after it (MPI_Barrier: a loop of back-to-back "
             "calls is timed); the latency is the mean time per call, averaged over the ranks. "
             "Iterations are set per size so that every size takes about 0.1 s of calls "
             "(at least 10), after a warm-up. The barrier between calls, the iteration count "
             "and the timings travel by point-to-point messages, so the harness does not use "
             "the collectives it measures. Every size's result is checked exactly once "
             "before it is timed (the barrier: no rank leaves it before the last enters); a "
             "wrong result fails the run.", "",
             f"- Measured {report_date()}"
             f", commit {source_commit()}: **{args.coll_rounds} rounds**, the MPIs taking turns "
             f"within each, **median over the rounds**; {args.coll_elapsed / 60:.1f} minutes; "
             f"{args.coll_timeout} s timeout per run; other load just before each run: "
             f"{load}.{quick}",
             "- Each collective is a program of its own (`-DONLY_BCAST` ...), so one that an "
             "MPI lacks is *not available* on its own, and one that crashes, hangs or gives a "
             "wrong result is *failed* from that size on without taking the others along.",
             "- Open MPI's `--oversubscribe` makes its ranks yield the core while they wait; "
             "MPICH (ch4) has no such switch and polls, which is why it is far slower when "
             "oversubscribed.", "",
             "| MPI | 2 ranks, one per core | 4 ranks on 2 cores |", "|---|---|---|"]
    lines += [f"| {m.name} | {coll_launch(m, 2)} | {coll_launch(m, 4)} |" for m in mpis]
    lines += ["", "| Target | Status | Details |", "|---|---|---|"]
    lines += [f"| {name} | **{verdict}** | {worst} |"
              for name, (verdict, worst) in coll_targets(coll, mpis, args.coll_max_bytes)]
    lines += ["", "**Latency in µs, lower is better. Ratio = metampi / better peer (the lower of "
              "Open MPI and MPICH): below 1 means metampi is faster.** \"target\": the ratio "
              f"is at most {COLL_LIMIT[2]} with 2 ranks, {COLL_LIMIT[4]} with 4.", ""]
    for c in COLLS:
        lines += coll_table(coll, mpis, c, args.coll_max_bytes)
    lines += [f"![collective latency, {np} ranks](perf/{coll_plot_name(np)})" for np in COLL_NP]
    return lines + ["", COLL_END, ""]


def coll_table(coll, mpis, c, max_bytes):
    notes = {}   # (mpi slug, np) -> note number; texts in order of numbers
    texts = []
    for np in COLL_NP:
        for m in mpis:
            why = (f"not available: {m.unavailable['coll_' + c]}" if "coll_" + c in m.unavailable
                   else m.failed.get(coll_key(c, np)))
            if why:
                text = f"{m.name}, {np} ranks: {why}".replace("|", "/").replace("\n", " ")
                if "coll_" + c in m.unavailable:
                    text = f"{m.name}: {why}".replace("|", "/").replace("\n", " ")
                if text not in texts:
                    texts.append(text)
                notes[(m.slug, np)] = texts.index(text) + 1
    head = "| size |"
    rule = "|---:|"
    for np in COLL_NP:
        head += (f" {np} ranks: metampi | Open MPI | MPICH | ratio | "
                 f"target ≤ {COLL_LIMIT[np]} |")
        rule += "---:|---:|---:|---:|:---:|"
    lines = [f"### {COLL_TITLES[c]}", "", head, rule]
    for b in coll_sizes(c, max_bytes):
        row = f"| {'—' if c == 'barrier' else human_bytes(b)} |"
        for np in COLL_NP:
            for m in mpis:
                v = coll[np][c][m.slug].median(b)
                note = notes.get((m.slug, np))
                row += (f" {v:.2f} |" if v is not None else
                        f" — [{note}] |" if note else " — |")
            r, _, _ = coll_ratio(coll, np, c, b)
            row += (" n/a | — |" if r is None else
                    f" {r:.2f} | {'met' if r <= COLL_LIMIT[np] else '**not met**'} |")
        lines.append(row)
    lines += [""] + [f"[{i}] {t}  " for i, t in enumerate(texts, 1)]
    return lines + ([""] if texts else [])


def update_report(path, section, rows, part):
    """--only coll / --only tcp: replaces that part of an existing report (between its
    markers; else inserted before the collectives, or the startup section) and its rows in
    the targets table, leaving the rest as it was; or writes a report of that part alone.
    part: (begin marker, end marker, prefix of its target rows)."""
    begin, end, prefix = part
    try:
        with open(path) as f:
            lines = f.read().split("\n")
    except FileNotFoundError:
        lines = ["# Performance", "", "Generated by bench/run_benchmarks.py --only (see "
                 "bench/README.md); `make bench` writes the full report.", "",
                 "## Targets (from the issue)", "", "| Target | Status | Worst size |",
                 "|---|---|---|", "", ""]
    if begin in lines and end in lines:
        i, j = lines.index(begin), lines.index(end)
        lines[i:j + 1] = section[:-1] if section[-1] == "" else section
    else:
        at = next((lines.index(h) for h in (COLL_BEGIN, "## Startup") if h in lines and
                   h != begin), len(lines))
        lines[at:at] = section
    if "## Targets (from the issue)" in lines:
        start = lines.index("## Targets (from the issue)")
        while start < len(lines) and not lines[start].startswith("|"):
            start += 1
        end_ = start
        while end_ < len(lines) and lines[end_].startswith("|"):
            end_ += 1
        table = [l for l in lines[start:end_] if not l.startswith(f"| {prefix}")]
        # the part's rows go where they were, else at the end (the collectives last)
        at = len(table)
        if prefix != COLL_TARGET_PREFIX:
            at = next((k for k, l in enumerate(table) if l.startswith(f"| {COLL_TARGET_PREFIX}")),
                      len(table))
        table[at:at] = [f"| {name} | **{verdict}** | {worst} |"
                        for name, (verdict, worst) in rows]
        lines[start:end_] = table
    with open(path, "w") as f:
        f.write("\n".join(lines))


def pct(a, b):
    return "n/a" if a is None or not b else f"{a / b:.0%}"


def noncontig_section(nc, mpis):
    lines = ["## Non-contiguous transfers", "",
             "`bench/p2p/noncontig.c`, OSU bandwidth method with a window of 16 messages (MB/s, "
             "MB = 10^6 B), both sides using the same datatype. **Strided vector**: "
             "`MPI_Type_vector` of doubles with blocks of B bytes, every other block (so the "
             "data spans twice the message), for B = 8 B ... 64 KiB; **faces**: the three faces "
             "of a 256 x 256 x 256 array of doubles (`MPI_Type_create_subarray`, C order): "
             "face_x is one contiguous 512 KiB plane, face_y 256 rows of 2 KiB, face_z 65536 "
             "single doubles — the halo exchange of a 3-D domain decomposition. Each run also "
             "sends the same number of bytes contiguously (`contig`); \"% contig\" is each "
             "MPI's non-contiguous bandwidth as a share of its own contiguous bandwidth in the "
             "same run. Every case is verified byte by byte first.", "",
             "**Higher is better. Ratio = metampi / better peer: above 1 means metampi is "
             "faster.**", ""]
    for label, _ in NC_RUNS:
        lines += [f"### {label}", "",
                  "| case | block | metampi (MB/s) | % contig | Open MPI (MB/s) | % contig | "
                  "MPICH (MB/s) | % contig | metampi / best peer |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for key in nc_keys(nc, label):
            case, block, nbytes = key
            cells = []
            for m in mpis:
                v = nc[label][m.slug].median(key)
                cells += [fmt(v, 1) if v is not None else "—",
                          pct(v, nc_contig(nc, label, m.slug, nbytes))]
            mine = nc[label]["metampi"].median(key)
            peers = [v for v in (nc[label][p].median(key) for p in ("openmpi", "mpich"))
                     if v is not None]
            r = "n/a" if mine is None or not peers else f"{mine / max(peers):.2f}"
            lines.append(f"| {case} | {human_bytes(block)} | " + " | ".join(cells) + f" | {r} |")
        failed = [f"{m.name}: {nc[label][m.slug].failed}" for m in mpis
                  if nc[label][m.slug].failed]
        lines += [""] + [f"- {f}" for f in failed] + [""]
    return lines + ["![non-contiguous transfers](perf/noncontig.png)", ""]


def header(machine, mpis, args, elapsed):
    quick = (f" **Development run** (`--quick` or reduced settings: {args.rounds} rounds, "
             f"iterations × {args.scale}): not for publication." if args.scale < 1 or
             args.rounds < 3 else "")
    lines = [
        "# Performance",
        "",
        "Generated by `make bench` (bench/run_benchmarks.py, see bench/README.md); do not edit "
        "by hand." + quick,
        "",
        "## How these numbers were obtained",
        "",
        "- metampi, Open MPI and MPICH on the same machine in the same run. Each benchmark "
        "program is built with each MPI's own compiler wrapper (`-O2`) and started with its own "
        "launcher.",
        f"- Point to point: 2 ranks, one per core. The MPIs take turns within each of "
        f"**{args.rounds} rounds** (A B C, then B C A, ...) so a slow phase of the machine hits "
        f"all of them alike; the tables show the **median over the rounds** per size. Each run "
        f"has a {args.timeout} s timeout.",
        "- Launch commands:",
    ]
    for m in mpis:
        cmd = " ".join(os.path.basename(c) if i == 0 else c
                       for i, c in enumerate(m.launcher + m.bind_opts + ["-n", "2"]))
        lines.append(f"  - {m.name}: `{cmd} ./latency` (and `./bandwidth`)"
                     + (" — this mpirun has no `--bind-to` yet; it binds by its default"
                        if m.slug == "metampi" and not m.bind_opts else ""))
    lines += [
        "- Between two emulated hosts (one rank each, TCP), against raw TCP and iperf3: "
        "see [Between two hosts (TCP)](#between-two-hosts-tcp).",
        "- Between two emulated sites joined by an emulated WAN (5 ms, 1 Gbit/s): latency, "
        "bandwidth, collectives on 2 sites × 4 ranks and the demo, with their own rounds: see "
        "[Between two sites (WAN)](#between-two-sites-wan).",
        "- Collectives: 2 ranks (one per core) and 4 ranks (oversubscribed), with their own "
        "rounds and launch commands: see [Collective latency](#collective-latency).",
        "- A program that does not build is *not available*; one that crashes, hangs or "
        "delivers wrong data is *failed* from the size where it stopped: \"—\" in the tables, "
        "with the reason under the table. Timings never fail anything.",
        f"- Whole run: {elapsed / 60:.1f} minutes.",
        load_note(args),
        "",
        "| Machine | |",
        "|---|---|",
    ]
    lines += [f"| {k} | {v.replace('|', '/')} |" for k, v in machine]
    return lines + [""]


def load_note(args):
    """What other work the machine had just before the point-to-point runs."""
    busy = getattr(args, "busy", [])
    if not busy:
        return "- Other load on the machine: not measured."
    worst, typical = max(busy), statistics.median(busy)
    note = (f"- Other load on the machine just before each point-to-point run (the runner waits "
            f"for it to drop below 10%, up to {args.wait_idle} s in all): median {typical:.0%}, "
            f"worst {worst:.0%} of the CPUs.")
    if worst > 0.10:
        note += (" **The machine was busy during this run: MPIs that poll (Open MPI, MPICH) "
                 "suffer more from sharing cores than ones that block, so these numbers are not "
                 "reliable.**")
    return note


def targets_section(verdicts):
    lines = ["## Targets (from the issue)", "",
             "Computed by the runner from the medians below; \"better peer\" is the better of "
             "Open MPI and MPICH at each size.", "",
             "| Target | Status | Worst size |", "|---|---|---|"]
    lines += [f"| {name} | **{verdict}** | {worst} |" for name, (verdict, worst) in verdicts]
    return lines + [""]


def p2p_section(results, mpis, program, args):
    if program == "latency":
        lines = ["## Ping-pong latency", "",
                 "`bench/p2p/latency.c`, OSU method (osu_latency): MPI_Send/MPI_Recv between "
                 "ranks 0 and 1; warm-up round trips, then timed ones (10000 up to 16 KiB, then "
                 "about 256 MiB each way, at least 100); one-way latency = half the mean round "
                 "trip, in µs. Every size is verified in both directions first.", "",
                 "**Lower is better. Ratio = metampi / better peer (the lower of Open MPI and "
                 "MPICH): below 1 means metampi is faster.**", "",
                 "| size | metampi (µs) | Open MPI (µs) | MPICH (µs) | metampi / best peer |",
                 "|---:|---:|---:|---:|---:|"]
        digits = 2
    else:
        lines = ["## Streaming bandwidth", "",
                 "`bench/p2p/bandwidth.c`, OSU method (osu_bw): rank 0 posts a window of 64 "
                 "MPI_Isend + MPI_Waitall, rank 1 64 MPI_Irecv + MPI_Waitall and a zero-byte ack; "
                 "warm-up windows, then timed ones (1000 up to 16 KiB, then about 1 GiB per size, "
                 "at least 20); MB/s with MB = 10^6 B. The first window of every size is "
                 "verified message by message. At 0 B the columns are messages per second "
                 "(millions) instead.", "",
                 "**Higher is better. Ratio = metampi / better peer (the higher of Open MPI and "
                 "MPICH): above 1 means metampi is faster.**", "",
                 "| size | metampi (MB/s) | Open MPI (MB/s) | MPICH (MB/s) | metampi / best peer |",
                 "|---:|---:|---:|---:|---:|"]
        digits = 1
    notes = p2p_notes(mpis, program)
    for b in expected_sizes(args.max_bytes):
        cells = []
        for m in mpis:
            value = results[program][m.slug].median(b)
            cells.append(p2p_cell(program, b, value, digits, notes.get(m.slug)))
        r = ratio_to_best(results, program, b)
        lines.append(f"| {human_bytes(b)} | " + " | ".join(cells) +
                     f" | {'n/a' if r is None else f'{r:.2f}'} |")
    lines += [""] + [f"[{i}] {text}" + "  " for i, text in sorted(set(notes.values()))]
    plot_name = "latency" if program == "latency" else "bandwidth"
    return lines + ["", f"![{program}](perf/{plot_name}.png)", ""]


def p2p_notes(mpis, program):
    """{mpi slug: (note number, text)} for the MPIs whose program is unavailable or failed."""
    notes, n = {}, 0
    for m in mpis:
        why = (f"not available: {m.unavailable[program]}" if program in m.unavailable else
               m.failed.get(program))
        if why:
            n += 1
            notes[m.slug] = (n, f"{m.name}: {why}".replace("|", "/").replace("\n", " "))
    return notes


def p2p_cell(program, b, value, digits, note):
    if value is None:
        return f"— [{note[0]}]" if note else "—"
    if program == "bandwidth" and b == 0:
        return f"{value / 1e6:.2f} M msg/s"
    return f"{display_value(program, b, value):.{digits}f}"


def startup_section(startup, mpis, args):
    by = {m.slug: m for m in mpis}
    lines = [
        "## Startup",
        "",
        f"Wall time of `mpirun -n N ./init_finalize` (MPI_Init, MPI_Comm_rank, MPI_Finalize), "
        f"median of {args.startup_reps} runs, in milliseconds; not pinned. Open MPI runs with "
        "`--oversubscribe`. Ratios are metampi / other: above 1 means metampi is slower.",
        "",
        "Read this with care: metampi's launcher does much less than the others today — one "
        "host, no topology discovery, no daemons — so part of the gap will close as those "
        "features land.",
        "",
        "| N | metampi (ms) | Open MPI (ms) | MPICH (ms) | metampi/Open MPI | metampi/MPICH |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for np in STARTUP_NP:
        t = {slug: startup[slug][np] for slug in by}
        ms = {slug: None if v is None else v * 1e3 for slug, v in t.items()}
        lines.append(f"| {np} | {fmt(ms['metampi'], 1)} | {fmt(ms['openmpi'], 1)} | "
                     f"{fmt(ms['mpich'], 1)} | {ratio(t['metampi'], t['openmpi'])} | "
                     f"{ratio(t['metampi'], t['mpich'])} |")
    problems = [(m.name, w) for m in mpis for p, w in
                list(m.unavailable.items()) + list(m.failed.items()) if p == "init_finalize"]
    lines += [""] + [f"- {name}: {why}" for name, why in problems]
    return lines + ["", "![startup](perf/startup.png)", ""]


def ratio(a, b):
    return "n/a" if a is None or b is None or b == 0 else f"{a / b:.3g}"


# --- raw results --------------------------------------------------------------------------
#
# Every run saves what it measured to <work>/results.json (results-coll.json, ... with --only)
# before it writes the report, and --from-results FILE writes the report and plots from such a
# file without measuring: the report is a function of the raw results and CONTEXT.

RESULTS_FORMAT = "metampi bench results 1"


def to_data(x):
    """x as JSON data: objects as their attributes, tuples as lists, sets as sorted lists,
    and a dict whose keys are not all strings as {"__items__": [[key, value], ...]}, so that
    its keys (sizes, rank counts, tuples) and their order come back as they were."""
    if isinstance(x, dict):
        if all(isinstance(k, str) for k in x):
            return {k: to_data(v) for k, v in x.items()}
        return {"__items__": [[to_data(k), to_data(v)] for k, v in x.items()]}
    if isinstance(x, (list, tuple)):
        return [to_data(v) for v in x]
    if isinstance(x, (set, frozenset)):
        return sorted(to_data(v) for v in x)
    if hasattr(x, "__dict__"):
        return to_data(vars(x))
    return x


def from_data(x):
    """The inverse of to_data, but for the types of objects (restore()) and for lists that
    were tuples or sets (only keys become tuples again)."""
    def key(k):
        return tuple(key(v) for v in k) if isinstance(k, list) else k
    if isinstance(x, dict):
        if list(x) == ["__items__"]:
            return {key(from_data(k)): from_data(v) for k, v in x["__items__"]}
        return {k: from_data(v) for k, v in x.items()}
    if isinstance(x, list):
        return [from_data(v) for v in x]
    return x


def restore(cls, attrs):
    obj = cls.__new__(cls)
    obj.__dict__.update(attrs)
    return obj


def results_path(args):
    return os.path.join(args.work, f"results-{args.only}.json" if args.only else "results.json")


def save_results(path, args, mpis, startup, results, nc, coll, tcp, wan):
    """The raw results of a run (None for a part it did not measure), its options and
    CONTEXT."""
    options = {k: v for k, v in vars(args).items() if k not in
               ("busy", "coll_busy", "tcp_busy", "idle_budget", "coll_elapsed", "tcp_elapsed")}
    record = {"format": RESULTS_FORMAT, "settings": options, "context": CONTEXT, "mpis": mpis,
              "startup": startup,
              "p2p": None if results is None else {"results": results, "busy": args.busy},
              "noncontig": nc,
              "coll": None if coll is None else {"results": coll, "busy": args.coll_busy,
                                                 "elapsed": args.coll_elapsed},
              "tcp": None if tcp is None else dict(vars(tcp), busy=args.tcp_busy,
                                                   elapsed=args.tcp_elapsed),
              "wan": wan}
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as f:
        json.dump(to_data(record), f, indent=1)
        f.write("\n")


def load_results(path, docs):
    """(args, mpis, startup, results, nc, coll, tcp, wan) as the run that saved them had them;
    CONTEXT as it was; args.docs = docs."""
    from wan import measure as wan_measure
    with open(path) as f:
        record = from_data(json.load(f))
    if record.get("format") != RESULTS_FORMAT:
        raise SystemExit(f"run_benchmarks.py: {path}: not a results file of this runner "
                         f"(format {record.get('format')!r}, expected {RESULTS_FORMAT!r})")
    args = argparse.Namespace(**record["settings"])
    args.docs = docs
    args.busy, args.coll_busy, args.tcp_busy = [], [], []
    CONTEXT.clear()
    CONTEXT.update(record["context"])
    mpis = [restore(Mpi, m) for m in record["mpis"]]
    startup, results, nc, coll, tcp, wan = (None,) * 6
    if record["startup"] is not None:
        startup = record["startup"]
    if record["p2p"] is not None:
        results = {p: {s: restore(P2pResult, r) for s, r in by.items()}
                   for p, by in record["p2p"]["results"].items()}
        args.busy = record["p2p"]["busy"]
    if record["noncontig"] is not None:
        nc = {label: {s: restore(NcResult, r) for s, r in by.items()}
              for label, by in record["noncontig"].items()}
    if record["coll"] is not None:
        coll = {np: {c: {s: restore(P2pResult, r) for s, r in by.items()}
                     for c, by in per_np.items()}
                for np, per_np in record["coll"]["results"].items()}
        args.coll_busy, args.coll_elapsed = record["coll"]["busy"], record["coll"]["elapsed"]
    if record["tcp"] is not None:
        attrs = dict(record["tcp"])
        args.tcp_busy, args.tcp_elapsed = attrs.pop("busy"), attrs.pop("elapsed")
        tcp = restore(TcpRun, attrs)
        tcp.results = {p: {s: restore(P2pResult, r) for s, r in by.items()}
                       for p, by in tcp.results.items()}
        tcp.checks = {p: {s: restore(LinkCheck, c) for s, c in by.items()}
                      for p, by in tcp.checks.items()}
    if record["wan"] is not None:
        wan = restore(wan_measure.WanRun, record["wan"])
        wan.results = {p: {s: restore(P2pResult, r) for s, r in by.items()}
                       for p, by in wan.results.items()}
        wan.checks = {p: {s: restore(LinkCheck, c) for s, c in by.items()}
                      for p, by in wan.checks.items()}
        wan.isolated = set(wan.isolated)
    return args, mpis, startup, results, nc, coll, tcp, wan


# --- main ---------------------------------------------------------------------------------

def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", help="metampi build tree (bin/mpicc, bin/mpirun)")
    ap.add_argument("--docs", required=True, help="where performance.md and perf/ go")
    ap.add_argument("--work", help="scratch dir for the benchmark binaries and the raw results")
    ap.add_argument("--rounds", type=int, default=5, help="point-to-point rounds (default 5)")
    ap.add_argument("--startup-reps", type=int, default=10, help="startup runs per N (10)")
    ap.add_argument("--scale", type=float, default=1.0,
                    help="multiply every iteration count by this, in (0, 1] (default 1)")
    ap.add_argument("--max-bytes", type=int, default=MAX_BYTES, help="largest message (4 MiB)")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per run (default 120)")
    ap.add_argument("--wait-idle", type=int, default=60,
                    help="before each point-to-point run, wait for other work on the machine to "
                         "drop below 10%% of the CPUs, up to this many seconds over the whole "
                         "run (default 60)")
    ap.add_argument("--coll-rounds", type=int, default=5,
                    help="collective rounds, MPIs interleaved in each (default 5)")
    ap.add_argument("--coll-max-bytes", type=int, default=COLL_MAX_BYTES,
                    help="largest collective size (1 MiB)")
    ap.add_argument("--coll-timeout", type=int, default=60,
                    help="seconds per collective run (default 60)")
    ap.add_argument("--wan-rounds", type=int, default=3,
                    help="rounds between two emulated sites, contenders interleaved in each "
                         "(default 3; 1 with --quick)")
    ap.add_argument("--wan-timeout", type=int, default=60,
                    help="seconds per run between two sites (default 60)")
    ap.add_argument("--only", choices=["coll", "tcp", "wan"],
                    help="coll: only the collectives; tcp: only the benchmarks between two "
                         "emulated hosts; wan: only those between two emulated sites (tcp and "
                         "wan need root); replaces that part of performance.md (and its rows "
                         "in the targets table), keeps the rest")
    ap.add_argument("--quick", action="store_true",
                    help="development: 2 rounds, 2 startup runs, iterations x 0.05")
    ap.add_argument("--from-results", metavar="FILE",
                    help="measure nothing: write the report and plots (into --docs) from the "
                         "raw results an earlier run saved (<work>/results*.json), as that run "
                         "did; the other options are ignored")
    args = ap.parse_args()
    missing = [o for o, v in (("--build", args.build), ("--work", args.work)) if v is None]
    if missing and not args.from_results:
        ap.error("the following arguments are required: " + ", ".join(missing))
    if args.quick:
        args.rounds, args.startup_reps, args.scale, args.wait_idle = 2, 2, 0.05, 0
        args.coll_rounds, args.wan_rounds = 2, 1
    if (not 0 < args.scale <= 1 or args.rounds < 1 or args.startup_reps < 1 or
            args.coll_rounds < 1 or args.coll_max_bytes < 4 or args.wan_rounds < 1 or
            args.wan_timeout < 1):
        ap.error("need 0 < --scale <= 1, --rounds >= 1, --startup-reps >= 1, "
                 "--coll-rounds >= 1, --coll-max-bytes >= 4, --wan-rounds >= 1, "
                 "--wan-timeout >= 1")
    return args


def interrupted(signum, _frame):
    """SIGTERM ends the runner like Ctrl-C: the run in progress is killed (run()) and the
    emulated cluster torn down (Cluster.__exit__) on the way out."""
    raise KeyboardInterrupt(f"signal {signum}")


def main():
    signal.signal(signal.SIGTERM, interrupted)
    args = parse_args()
    if args.from_results:
        args, mpis, startup, results, nc, coll, tcp, wan = load_results(args.from_results,
                                                                         args.docs)
    else:
        args, mpis, startup, results, nc, coll, tcp, wan = measure(args)
    report_all(args, mpis, startup, results, nc, coll, tcp, wan)


def measure(args):
    """Measures what args ask for, saves the raw results; returns (args, mpis, startup,
    results, nc, coll, tcp, wan), None for the parts not measured."""
    source_commit()   # before anything is written
    began = time.perf_counter()
    build = os.path.realpath(args.build)
    args.build_dir = build
    mpis = mpis_under_test(build)
    only_coll, only_tcp, only_wan = args.only == "coll", args.only == "tcp", args.only == "wan"
    startup, results, nc, coll, tcp, wan = (None,) * 6
    from wan import measure as wan_measure
    print("building benchmark programs", flush=True)
    wanted = (list(P2P) if only_tcp else
              list(P2P) + [wan_measure.coll_program(c) for c in wan_measure.COLLS] if only_wan
              else [n for n in SOURCES if n.startswith("coll_")] if only_coll else list(SOURCES))
    build_programs(mpis, args.work, wanted)
    args.busy, args.coll_busy = [], []  # other load seen just before each run
    args.idle_budget = args.wait_idle   # seconds left to wait for it, over the whole run
    if not args.only:
        print("measuring startup", flush=True)
        startup = measure_startup(mpis, args.startup_reps, args.timeout)
        print("measuring latency and bandwidth", flush=True)
        results = measure_p2p(mpis, args)
        print("measuring non-contiguous transfers", flush=True)
        nc = measure_noncontig(mpis, args)
    if not only_coll and not only_wan:
        print("measuring between two emulated hosts (TCP)", flush=True)
        tcp = measure_tcp(mpis, args)
    if not args.only or only_wan:
        print("measuring between two emulated sites (WAN)", flush=True)
        wan = wan_measure.measure_wan(mpis, args)
    if not args.only or only_coll:
        print("measuring collectives", flush=True)
        coll_began = time.perf_counter()
        coll = measure_coll(mpis, args)
        args.coll_elapsed = time.perf_counter() - coll_began
    report_date()
    if not args.only:
        from_context("machine", lambda: machine_description(build))
        from_context("elapsed", lambda: time.perf_counter() - began)
    if tcp is not None or wan is not None:
        iperf_version()
    save_results(results_path(args), args, mpis, startup, results, nc, coll, tcp, wan)
    return args, mpis, startup, results, nc, coll, tcp, wan


def report_all(args, mpis, startup, results, nc, coll, tcp, wan):
    """Writes the report and plots of what was measured (the part with --only), prints the
    targets and failures, and exits: 1 if a program failed outside the sections between
    hosts and sites."""
    from wan import measure as wan_measure, report as wan_report
    only_coll, only_tcp, only_wan = args.only == "coll", args.only == "tcp", args.only == "wan"
    perfdir = os.path.join(args.docs, "perf")
    report = os.path.join(args.docs, "performance.md")
    if only_coll:
        verdicts = coll_targets(coll, mpis, args.coll_max_bytes)
        os.makedirs(perfdir, exist_ok=True)
        plot_colls(pyplot(), coll, mpis, perfdir)
        update_report(report, coll_section(coll, mpis, args), verdicts,
                      (COLL_BEGIN, COLL_END, COLL_TARGET_PREFIX))
        print(f"updated the collective part of {report}; wrote "
              f"{', '.join(os.path.join(perfdir, coll_plot_name(np)) for np in COLL_NP)}")
    elif only_tcp:
        verdicts = tcp_targets(tcp, args.max_bytes)
        pngs = plot_tcp(tcp, mpis, perfdir, args.max_bytes)
        update_report(report, tcp_section(tcp, mpis, args), verdicts,
                      (TCP_BEGIN, TCP_END, TCP_TARGET_PREFIX))
        print(f"updated the part between two hosts of {report}; wrote {', '.join(pngs)}")
    elif only_wan:
        verdicts = wan_report.targets(wan)
        pngs = wan_report.plot(wan, perfdir)
        update_report(report, wan_report.section(wan, mpis, args), verdicts,
                      (wan_report.WAN_BEGIN, wan_report.WAN_END, wan_report.TARGET_PREFIX))
        print(f"updated the part between two sites of {report}; wrote {', '.join(pngs)}")
    else:
        verdicts = (targets(results, args.max_bytes) + nc_targets(nc) +
                    tcp_targets(tcp, args.max_bytes) + wan_report.targets(wan) +
                    coll_targets(coll, mpis, args.coll_max_bytes))
        plot(startup, results, mpis, perfdir, nc, coll)
        plot_tcp(tcp, mpis, perfdir, args.max_bytes)
        wan_report.plot(wan, perfdir)
        with open(report, "w") as f:
            f.write(markdown(startup, results, mpis, CONTEXT["machine"], args, verdicts,
                             CONTEXT["elapsed"], nc, coll, tcp, wan))
        print(f"wrote {report} and {perfdir}/*.png")

    for name, (verdict, worst) in verdicts:
        print(f"target: {name}: {verdict.upper()} ({worst})")
    for m in mpis:
        for p, why in m.unavailable.items():
            print(f"NOT AVAILABLE ({m.name} {p}): {why}", file=sys.stderr)
        for p, why in m.failed.items():
            print(f"FAILED ({m.name} {p}): {why}", file=sys.stderr)
    if not only_coll and not only_wan:
        # reported, but never the exit status: see the TCP section's comment
        names = dict(TCP_NAMES, **{m.slug: m.name for m in mpis})
        if tcp.error:
            print(f"NOT MEASURED (between two hosts): {tcp.error}", file=sys.stderr)
        for (slug, p), why in tcp.failures.items():
            print(f"FAILED (between two hosts: {names[slug]} {p}): {why}", file=sys.stderr)
    if not args.only or only_wan:
        # the same between two sites: reported, never the exit status
        if wan.error:
            print(f"NOT MEASURED (between two sites): {wan.error}", file=sys.stderr)
        for slug, why in wan.unavailable.items():
            print(f"NOT AVAILABLE (between two sites: {wan_measure.name_of(slug)}): {why}",
                  file=sys.stderr)
        for (slug, p), why in wan.failures.items():
            print(f"FAILED (between two sites: {wan_measure.name_of(slug)} {p}): {why}",
                  file=sys.stderr)
    sys.exit(1 if any(m.failed for m in mpis) else 0)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt as e:
        print(f"run_benchmarks.py: interrupted ({e or 'Ctrl-C'}); nothing written", file=sys.stderr)
        sys.exit(130)
