"""The rounds between two emulated hosts: in each, per program, every MPI, raw TCP (and
iperf3 for bandwidth), taking turns in an order rotated every round, on one cluster made for
the section. metampi starts from the root namespace through its helpers; Open MPI's and
MPICH's launchers run inside h1 (mpis.launch_two_hosts)."""
import json
import os
import re
import time

from metabench.cluster import Cluster, client_server
from metabench.formatting import human_bytes, human_bytes_si
from metabench.limits import IPERF, RAW, RAW_WINDOW, raw_iterations, raw_sizes
from metabench.mpis import launch_two_hosts
from metabench.paths import NETNS_AGENT
from metabench.process import first_error_line, run
from metabench.programs import P2P, expected_sizes, parse_p2p_with_counts, payload
from metabench.results import LinkCheck, P2pResult
from metabench.schedule import rotated
from metabench.tcp.rma import tcp_rma_once

RAW_PORT, IPERF_PORT = 5301, 5201
IPERF_SECONDS = 5
# How the contenders besides the MPIs are named.
TCP_NAMES = {RAW: "raw TCP", IPERF: "iperf3"}


class TcpRun:
    """Everything the TCP section measured: results[program][slug] (P2pResult; iperf3 under
    size 0), checks[program][slug] (LinkCheck), failures {(slug, program): why}, the load seen
    just before each run (busy) and how long the section took (elapsed, s)."""

    def __init__(self, slugs):
        self.results = {p: {s: P2pResult() for s in slugs + [RAW]} for p in P2P}
        self.results["bandwidth"][IPERF] = P2pResult()
        self.checks = {p: {s: LinkCheck() for s in self.results[p]} for p in P2P}
        self.failures = {}
        self.commands = {}          # slug -> launch command text
        self.error = None           # why nothing was measured
        self.left_behind = 0        # processes swept from the hosts after runs
        self.iperf_retransmits = []
        self.rma = {}               # slug -> rma.RmaResult (one-sided, tcp/rma.py)
        self.busy = []
        self.elapsed = 0.0


def tcp_launch(mpi, cluster):
    """The launch command of an MPI across the two hosts, up to the program."""
    h1, h2 = cluster.hosts
    return launch_two_hosts(mpi, h1, h2, cluster.subnet())


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


def tcp_mpi_once(tr, cluster, mpi, program, args, idle):
    sizes = expected_sizes(args.max_bytes)
    cmd = tcp_launch(mpi, cluster) + [mpi.programs[program], str(args.max_bytes),
                                      str(args.scale)]
    idle.before_run(tr.busy)
    before = cluster.counters()
    status, out, err, seconds = run(cmd, args.timeout)
    parsed = parse_p2p_with_counts(out, program)
    values = {b: v for b, (_, v) in parsed.items()}
    counts = {b: n for b, (n, _) in parsed.items()}
    tcp_record(tr, cluster, program, mpi.slug, status, out, err, values, sizes, counts, seconds,
               before)


def tcp_raw_once(tr, cluster, program, args, idle):
    raw = os.path.join(args.build_dir, "bench", "raw_tcp")
    sizes = [b for b in raw_sizes() if b <= args.max_bytes]
    idle.before_run(tr.busy)
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


def tcp_iperf_once(tr, cluster, args, idle):
    seconds_ = max(1, round(IPERF_SECONDS * args.scale))
    idle.before_run(tr.busy)
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


def measure_tcp(mpis, args, idle):
    """TcpRun: every round runs, per program, each MPI, raw TCP (and iperf3 for bandwidth),
    taking turns as in the point-to-point section, on one cluster made for the section."""
    tr = TcpRun([m.slug for m in mpis])
    began = time.perf_counter()
    if not os.path.exists(os.path.join(args.build_dir, "bench", "raw_tcp")):
        for p in P2P:
            tr.failures[(RAW, p)] = "not available: <build>/bench/raw_tcp is missing"
    with Cluster(os.path.join(args.work, "tcp")) as cluster:
        if cluster.error:
            tr.error = cluster.error
            print(f"  between two hosts: NOT MEASURED: {tr.error}", flush=True)
            tr.elapsed = time.perf_counter() - began
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
                        tcp_raw_once(tr, cluster, program, args, idle)
                    elif who == IPERF:
                        tcp_iperf_once(tr, cluster, args, idle)
                    elif program in who.programs:
                        tcp_mpi_once(tr, cluster, who, program, args, idle)
            for mpi in rotated(mpis, rnd):
                if "rma_latency" in mpi.programs:
                    tcp_rma_once(tr, cluster, mpi, tcp_launch(mpi, cluster), args, idle)
            print(f"  between two hosts: round {rnd + 1}/{args.rounds} done", flush=True)
    tr.elapsed = time.perf_counter() - began
    return tr
