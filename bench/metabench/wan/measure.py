"""The rounds of the WAN benchmarks (cluster.py describes the metacomputer).

Every round runs, with the contenders taking turns in an order rotated every round:
- latency.c and bandwidth.c with one rank at each site, next to raw TCP (bench/tcp/raw_tcp)
  and iperf3 between the same two hosts;
- coll_latency.c for MPI_Barrier, MPI_Bcast, MPI_Allreduce and MPI_Alltoall with 2 sites x 2
  hosts x 2 ranks;
- the demo (examples/demo, metampi-demo) with the same 8 ranks on one site (4 hosts) and on
  the two sites, with gateways and with --direct-wan.
Every run is checked to have crossed the WAN (the router's counters: at least the payload the
program timed must have crossed; the demo's one-site run must have left it alone). A run that
prints all its results and then does not exit (MPICH: UCX's TCP transport hangs in
MPI_Finalize across the WAN) is ended after GRACE seconds and keeps its results; the report
counts these runs. Failures are reported and never change the runner's exit status.
"""
import contextlib
import json
import os
import re
import shutil
import time

from metabench import limits
from metabench.cluster import client_server
from metabench.formatting import human_bytes, human_bytes_si
from metabench.limits import IPERF, RAW, RAW_WINDOW, raw_sizes
from metabench.process import first_error_line, run_job
from metabench.programs import P2P, expected_sizes, parse_p2p_with_counts, payload
from metabench.results import LinkCheck, P2pResult
from metabench.schedule import rotated
from metabench.wan import cluster as wc
from metabench.wan import recovery as wan_recovery

P2P_MAX = 1 << 20           # largest ping-pong and stream message over the WAN
LAT_SCALE = 0.002           # latency.c/raw_tcp: 20 round trips per size up to 16 KiB
BW_SCALE = 0.01             # bandwidth.c/raw_tcp: 10 windows per size up to 16 KiB, 1 from 1 MiB
COLLS = ("barrier", "bcast", "allreduce", "alltoall")
COLL_MAX = 1 << 20
COLL_SCALE = 0.3            # coll_latency: 0.03 s of calls per size, at least 3
COLL_STEP = 8               # ... and sizes 4 B, 32 B, ... 1 MiB (7: every call costs a WAN RTT)
DEMO_STEPS = 60
DEMO_ARGS = ["--grid", "96", "--steps", str(DEMO_STEPS), "--progress", "none"]
DEMO_CONFIGS = ("one", "gateway", "direct")   # one site; two sites with gateways; --direct-wan
DEMO_ONE_SITE_LIMIT = 64 << 10   # bytes the one-site run may put on the WAN (none expected)
IPERF_SECONDS = 3
RAW_PORT, IPERF_PORT = 5301, 5201
GRACE = 3                   # seconds a job may take to exit after printing all its results


def coll_program(coll):
    return "coll_" + coll


def coll_sizes(coll):
    """The sizes coll_latency reports with COLL_STEP: 0 for the barrier."""
    if coll == "barrier":
        return [0]
    sizes, b = [], 4
    while b <= COLL_MAX:
        sizes.append(b)
        b *= COLL_STEP
    return sizes


class WanRun:
    """Everything the WAN section measured. results[program][slug] (P2pResult; programs:
    latency, bandwidth, coll_<name>; iperf3 under size 0); checks[program][slug]
    (LinkCheck); failures {(slug, program): why}; hung {(slug, program): runs ended after
    their results}; demo[config] = [per run: {compute, local, wan, total, checksum}];
    unavailable {slug: why} for a contender that cannot run at all here."""

    def __init__(self, slugs):
        programs = list(P2P) + [coll_program(c) for c in COLLS]
        self.results = {p: {s: P2pResult() for s in slugs} for p in programs}
        for p in P2P:
            self.results[p][RAW] = P2pResult()
        self.results["bandwidth"][IPERF] = P2pResult()
        self.checks = {p: {s: LinkCheck() for s in self.results[p]} for p in programs}
        self.checks["demo"] = {c: LinkCheck() for c in DEMO_CONFIGS}
        self.demo = {c: [] for c in DEMO_CONFIGS}
        self.demo_wan_bytes = {c: [] for c in DEMO_CONFIGS}
        self.failures, self.hung, self.unavailable = {}, {}, {}
        self.retried = {}           # (slug, program) -> runs that timed out, run once more
        self.commands = {}          # (slug, kind) -> launch text; kind p2p, coll, demo-one
        self.error = None
        self.left_behind = 0
        self.busy, self.loadavg = [], []
        self.elapsed = 0.0
        self.iperf_retransmits = []
        self.recovery = wan_recovery.Recovery()   # the 10 s cut, once per round
        self.isolated = set()       # hosts that ran gateway-mode jobs without a WAN route
        self.logdir, self.runs = "", 0     # every run's output: <logdir>/<n>-<program>-<slug>.log


# --- one run of each kind ------------------------------------------------------------------

def record(wr, cluster, program, slug, run, values, sizes, bound, before, may_retry=False):
    """The common end of a run: WAN check, results, failure note, progress line.
    run: (status, stdout, stderr, seconds, hung); values {size: value}; bound: (payload bytes,
    messages) the run must have put on the WAN at least, or None (nothing to check).
    Returns False for a run to be tried once more: may_retry, and it timed out before all its
    results (on this loaded machine Open MPI 4.1's launch or a TCP connection across the WAN
    stalled now and then: "failed to TCP connect ... Operation now in progress", Open MPI
    issue #11508); it is then neither a result nor a failure, only counted, and what it printed
    is dropped. A crash or a wrong result (the programs abort) fails at once."""
    status, out, err, seconds, hung = run
    log = save_log(wr, program, slug, run)
    after = cluster.wan_counters()
    left = cluster.sweep()
    wr.left_behind += left
    if may_retry and status == 124 and not hung:
        wr.retried[(slug, program)] = wr.retried.get((slug, program), 0) + 1
        print(f"    {program:14} {name_of(slug):22} {seconds:6.1f} s timed out before all "
              f"its results; once more [output: {log}]", flush=True)
        return False
    result = wr.results[program][slug]
    complete = (status == 0 or hung) and all(b in values for b in sizes)
    crossed = True
    if before is not None and after is not None and bound is not None:
        link, packets = after[0] - before[0], after[1] - before[1]
        pay, messages = bound
        crossed = wr.checks[program][slug].add(link, pay, packets, messages)
        if not crossed:
            wr.failures[(slug, program)] = (
                f"its traffic did not cross the WAN: {human_bytes_si(link)} and {packets} "
                f"packets through the router for {human_bytes_si(pay)} of payload in "
                f"{messages or 'n/a'} messages; results discarded")
    if crossed:
        result.add_run(values, complete, sizes)
    if hung and complete:
        wr.hung[(slug, program)] = wr.hung.get((slug, program), 0) + 1
    if not complete and (slug, program) not in wr.failures:
        wr.failures[(slug, program)] = (
            f"failed from {human_bytes(result.failed_from)} on (exit status {status}): "
            f"{first_error_line(err + out)}")
    if not crossed:
        result.failed_from = sizes[0]
    ok = complete and crossed
    note = f" (did not exit after its results: ended after {GRACE} s)" if hung and ok else ""
    print(f"    {program:14} {name_of(slug):22} {seconds:6.1f} s "
          f"{'ok' + note if ok else 'FAILED: ' + wr.failures[(slug, program)]}"
          + (f" ({left} processes left on the hosts, ended)" if left else "")
          + ("" if ok and not hung else f" [output: {log}]"), flush=True)
    return True


def save_log(wr, program, slug, run):
    """Writes a run's exit status, time and output to <work>/wan/logs/; returns the path."""
    status, out, err, seconds, hung = run
    wr.runs += 1
    path = os.path.join(wr.logdir, f"{wr.runs:03d}-{program}-{slug}.log")
    try:
        os.makedirs(wr.logdir, exist_ok=True)
        with open(path, "w") as f:
            f.write(f"exit status {status}, {seconds:.1f} s, hung after results: {hung}\n"
                    f"--- stdout\n{out}\n--- stderr\n{err}\n")
    except OSError:
        pass
    return path


NAMES = {RAW: "raw TCP", IPERF: "iperf3", "metampi": "metampi (gateways)",
         "metampi-plain": "metampi (gateways, encrypt = off)",
         "metampi-direct": "metampi --direct-wan", "openmpi": "Open MPI", "mpich": "MPICH"}


def name_of(slug):
    return NAMES.get(slug, slug)


DEMO_TITLES = {"one": "one site (4 hosts × 2 ranks)",
               "gateway": "two sites, gateways (2 × 2 hosts × 2 ranks)",
               "direct": "two sites, --direct-wan"}


def before_run(wr, cluster, idle):
    idle.before_run(wr.busy)
    wr.loadavg.append(os.getloadavg()[0])
    return cluster.wan_counters()


def isolation(wr, cluster, c, layout):
    """In gateway mode on two sites, the hosts without a gateway lose their route to the other
    site for the run (cluster.without_wan_route); otherwise nothing."""
    if c.mode != "gateway" or len(layout) < 2:
        return contextlib.nullcontext()
    hosts = cluster.hosts_without_gateway(layout)
    wr.isolated.update(cluster.short(h) for h in hosts)
    return cluster.without_wan_route(hosts)


def last_line_done(pattern):
    return lambda out: re.search(pattern, out, re.M) is not None


def p2p_once(wr, cluster, c, program, desc, args, idle, may_retry=False):
    sizes = expected_sizes(P2P_MAX)
    scale = (LAT_SCALE if program == "latency" else BW_SCALE) * args.scale
    cmd = wc.launch(c, cluster.p2p_layout(), cluster, desc) + [
        c.mpi.programs[program], str(P2P_MAX), f"{scale:.6g}"]
    before = before_run(wr, cluster, idle)
    run = run_job(cmd, args.wan_timeout, last_line_done(rf"^{P2P_MAX} \d+ "), GRACE)
    parsed = parse_p2p_with_counts(run[1], program)
    values = {b: v for b, (_, v) in parsed.items()}
    counts = {b: n for b, (n, _) in parsed.items()}
    bound = payload(program, counts) if counts else None
    return record(wr, cluster, program, c.slug, run, values, sizes, bound, before, may_retry)


def raw_iterations(size, latency, scale):
    """raw_tcp.c's iters() with its scale (sent to the server in millionths)."""
    n = limits.raw_iterations(size, latency)
    ppm = max(1, int(scale * 1e6 + 0.5))
    return max(1, int(n * (ppm / 1e6)))


def raw_once(wr, cluster, program, args, idle):
    raw = os.path.join(args.build_dir, "bench", "raw_tcp")
    sizes = [b for b in raw_sizes() if b <= P2P_MAX]
    lat = program == "latency"
    scale = (LAT_SCALE if lat else BW_SCALE) * args.scale
    client, server = cluster.site(0)[0], cluster.site(1)[0]
    before = before_run(wr, cluster, idle)
    status, out, err, seconds = client_server(
        cluster, [raw, "server", str(RAW_PORT)],
        [raw, "client", cluster.addr(server), str(RAW_PORT), program, str(P2P_MAX),
         f"{scale:.6g}"], RAW_PORT, args.wan_timeout, hosts=(client, server))
    values = {int(m.group(1)): float(m.group(2))
              for m in re.finditer(r"^(\d+) ([\d.]+)$", out, re.M)}
    counts = {b: raw_iterations(b, lat, scale) for b in values}
    record(wr, cluster, program, RAW, (status, out, err, seconds, False), values, sizes,
           payload(program, counts, RAW_WINDOW) if counts else None, before)


def iperf_once(wr, cluster, args, idle):
    seconds_ = max(1, round(IPERF_SECONDS * args.scale))
    client, server = cluster.site(0)[0], cluster.site(1)[0]
    before = before_run(wr, cluster, idle)
    status, out, err, seconds = client_server(
        cluster, ["iperf3", "-s", "-1", "-p", str(IPERF_PORT)],
        ["iperf3", "-c", cluster.addr(server), "-p", str(IPERF_PORT), "-t", str(seconds_), "-J"],
        IPERF_PORT, args.wan_timeout, hosts=(client, server))
    values, sent = {}, 0
    try:
        end = json.loads(out)["end"]
        values = {0: end["sum_received"]["bits_per_second"] / 8e6}
        sent = int(end["sum_received"]["bytes"])   # what surely crossed
        wr.iperf_retransmits.append(end["sum_sent"].get("retransmits"))
    except (ValueError, KeyError, TypeError):
        m = re.search(r'"error":\s*"([^"]*)"', out)
        err += f" iperf3: {m.group(1) if m else 'no result'}"
    record(wr, cluster, "bandwidth", IPERF, (status, out, err, seconds, False), values, [0],
           (sent, 0) if sent else None, before)


def parse_coll(out, coll):
    """{bytes: (iterations, average latency in µs over the ranks)}."""
    return {int(m.group(1)): (int(m.group(2)), float(m.group(3)))
            for m in re.finditer(rf"^{coll} (\d+) (\d+) ([\d.]+) [\d.]+ [\d.]+$", out, re.M)}


# Ranks per site in the collective layout: what must cross the WAN per call, at least.
SITE_RANKS = 4


def coll_bound(coll, counts):
    """(bytes, packets) a correct run of the timed calls must have put on the WAN: every call
    needs a message in each direction (bcast: one way), and the data of the other site
    (bcast: N bytes to the far site; allreduce: N bytes each way; alltoall: N bytes from each
    rank to each rank of the other site, each way)."""
    per_byte = {"barrier": 0, "bcast": 1, "allreduce": 2,
                "alltoall": 2 * SITE_RANKS * SITE_RANKS}[coll]
    per_call = 1 if coll == "bcast" else 2
    return (sum(per_byte * b * n for b, n in counts.items()),
            sum(per_call * n for n in counts.values()))


def coll_once(wr, cluster, c, coll, desc, args, idle, may_retry=False):
    program = coll_program(coll)
    sizes = coll_sizes(coll)
    cmd = wc.launch(c, cluster.coll_layout(), cluster, desc) + [
        c.mpi.programs[program], str(COLL_MAX), f"{COLL_SCALE * args.scale:.6g}", coll,
        str(COLL_STEP)]
    before = before_run(wr, cluster, idle)
    with isolation(wr, cluster, c, cluster.coll_layout()):
        run = run_job(cmd, args.wan_timeout, last_line_done(rf"^{coll} {sizes[-1]} \d+ "),
                      GRACE)
    parsed = parse_coll(run[1], coll)
    values = {b: v for b, (_, v) in parsed.items()}
    counts = {b: n for b, (n, _) in parsed.items()}
    return record(wr, cluster, program, c.slug, run, values, sizes,
                  coll_bound(coll, counts) if counts else None, before, may_retry)


DEMO_TIMES = re.compile(r"compute ([\d.]+)\s+local comm ([\d.]+)\s+WAN comm ([\d.]+)\s+"
                        r"total ([\d.]+)")


def demo_once(wr, cluster, config, c, desc, args, idle):
    """One run of the demo: config "one" (one site) or "gateway"/"direct" (two sites, c's
    mode). Keeps the split per step and the checksum."""
    layout = cluster.one_site_layout() if config == "one" else cluster.coll_layout()
    demo = os.path.join(args.build_dir, "bin", "metampi-demo")
    cmd = wc.launch(c, layout, cluster, desc) + [demo] + DEMO_ARGS
    before = before_run(wr, cluster, idle)
    with isolation(wr, cluster, c, layout):
        status, out, err, seconds, hung = run_job(cmd, args.wan_timeout,
                                                  last_line_done(DEMO_TIMES.pattern), GRACE)
    log = save_log(wr, "demo-" + config, c.slug, (status, out, err, seconds, hung))
    after = cluster.wan_counters()
    wr.left_behind += cluster.sweep()
    m, cs = DEMO_TIMES.search(out), re.search(r"checksum (0x[0-9a-f]+)", out)
    key = ("metampi", "demo " + config)
    problem = None
    if status != 0 or not m or not cs:
        problem = f"exit status {status}: {first_error_line(err + out)}"
    elif before is not None and after is not None:
        link, packets = after[0] - before[0], after[1] - before[1]
        wr.demo_wan_bytes[config].append(link)
        if config == "one" and link > DEMO_ONE_SITE_LIMIT:
            problem = (f"the one-site run put {human_bytes_si(link)} on the WAN; results "
                       "discarded")
        elif config != "one" and not wr.checks["demo"][config].add(
                link, 2 * 8 * DEMO_STEPS, packets, 2 * DEMO_STEPS):
            problem = (f"its traffic did not cross the WAN ({human_bytes_si(link)}, "
                       f"{packets} packets); results discarded")
    if problem:
        wr.failures.setdefault(key, problem)
    else:
        wr.demo[config].append(dict(zip(("compute", "local", "wan", "total"),
                                        map(float, m.groups())), checksum=cs.group(1)))
    print(f"    demo {config:9} {seconds:6.1f} s "
          f"{'FAILED: ' + problem + f' [output: {log}]' if problem else 'ok'}", flush=True)


def gateway_probe(cluster, c, desc, args):
    """None if metampi starts a job on two sites in gateway mode here, else why not: a
    2-rank ping-pong of 0 bytes, one round trip."""
    cmd = wc.launch(c, cluster.p2p_layout(), cluster, desc) + [
        c.mpi.programs["latency"], "0", "0.0001"]
    status, out, err, _, _ = run_job(cmd, args.wan_timeout, last_line_done(r"^0 \d+ "),
                                     GRACE)
    cluster.sweep()
    if status == 0 and re.search(r"^0 \d+ ", out, re.M):
        return None
    why = first_error_line(err + out).replace(desc, os.path.basename(desc))
    return f"exit status {status}: {cluster.short(why)}"


# --- the rounds -----------------------------------------------------------------------------

def measure_wan(mpis, args, idle):
    """WanRun: args.wan_rounds rounds on one emulated metacomputer made for the section."""
    cs = wc.contenders(mpis)
    wr = WanRun([c.slug for c in cs])
    began = time.perf_counter()
    wanemu = os.path.join(args.build_dir, "tests", "bin", "wanemu")
    raw = os.path.join(args.build_dir, "bench", "raw_tcp")
    if not os.path.exists(raw):
        for p in P2P:
            wr.failures[(RAW, p)] = "not available: <build>/bench/raw_tcp is missing"
    if not os.path.exists(wanemu):
        wr.error = f"the WAN emulator is missing ({wanemu}; make build makes it)"
    else:
        with wc.SiteCluster(os.path.join(args.work, "wan"), wanemu) as cluster:
            if cluster.error:
                wr.error = cluster.error
            else:
                run_rounds(wr, cluster, cs, args, idle)
    if wr.error:
        print(f"  between two sites: NOT MEASURED: {wr.error}", flush=True)
    wr.elapsed = time.perf_counter() - began
    return wr


def p2p_description(c, desc):
    return desc["p2p" if c.encrypt else "p2p-plain"]


def run_rounds(wr, cluster, cs, args, idle):
    print(f"  emulated sites: {' '.join(cluster.site(0))} | {' '.join(cluster.site(1))}, "
          f"WAN {wc.WAN_DELAY} one way, {wc.WAN_RATE}", flush=True)
    work = os.path.join(args.work, "wan")
    wr.logdir = os.path.join(work, "logs")
    shutil.rmtree(wr.logdir, ignore_errors=True)
    desc = {"p2p": wc.write_description(os.path.join(work, "p2p.ini"),
                                        cluster.p2p_layout(), cluster),
            "p2p-plain": wc.write_description(os.path.join(work, "p2p-plain.ini"),
                                              cluster.p2p_layout(), cluster, encrypt=False),
            "coll": wc.write_description(os.path.join(work, "two-sites.ini"),
                                         cluster.coll_layout(), cluster),
            "one": wc.write_description(os.path.join(work, "one-site.ini"),
                                        cluster.one_site_layout(), cluster)}
    for c in cs:
        if "latency" not in c.mpi.programs:
            wr.unavailable[c.slug] = "the benchmark programs do not build"
        elif c.mode == "gateway":
            why = gateway_probe(cluster, c, p2p_description(c, desc), args)
            if why:
                wr.unavailable[c.slug] = f"gateway mode does not start here: {why}"
                print(f"  metampi with gateways: NOT AVAILABLE ({why})", flush=True)
    for c in cs:
        wr.commands[(c.slug, "p2p")] = wc.launch_text(c, cluster.p2p_layout(), cluster,
                                                      p2p_description(c, desc), "./latency")
        if not c.encrypt:
            continue
        wr.commands[(c.slug, "coll")] = wc.launch_text(c, cluster.coll_layout(), cluster,
                                                       desc["coll"], "./coll_latency")
    metampi = next(c for c in cs if c.slug == "metampi")
    wr.commands[("metampi", "demo-one")] = wc.launch_text(
        metampi, cluster.one_site_layout(), cluster, desc["one"], "metampi-demo")
    live = [c for c in cs if c.slug not in wr.unavailable]
    # the plaintext gateways are only the encrypted ones' yardstick for the ping-pong and stream
    live_coll = [c for c in live if c.encrypt]

    def runnable(slug, program):
        return (wr.results[program][slug].failed_from is None and
                (slug, program) not in wr.failures)

    for rnd in range(args.wan_rounds):
        began = time.perf_counter()
        for program in P2P:
            order = live + [RAW] + ([IPERF] if program == "bandwidth" else [])
            for who in rotated(order, rnd):
                slug = who if isinstance(who, str) else who.slug
                if not runnable(slug, program):
                    continue
                if who == RAW:
                    raw_once(wr, cluster, program, args, idle)
                elif who == IPERF:
                    iperf_once(wr, cluster, args, idle)
                elif program in who.mpi.programs:
                    d = p2p_description(who, desc)
                    if not p2p_once(wr, cluster, who, program, d, args, idle, True):
                        p2p_once(wr, cluster, who, program, d, args, idle)
        for coll in COLLS:
            for c in rotated(live_coll, rnd):
                if coll_program(coll) in c.mpi.programs and runnable(c.slug, coll_program(coll)):
                    if not coll_once(wr, cluster, c, coll, desc["coll"], args, idle, True):
                        coll_once(wr, cluster, c, coll, desc["coll"], args, idle)
        by = {c.slug: c for c in cs}
        configs = [("one", by["metampi"], desc["one"])]
        if "metampi" in [c.slug for c in live]:
            configs.append(("gateway", by["metampi"], desc["coll"]))
        configs.append(("direct", by["metampi-direct"], desc["coll"]))
        for config, c, d in rotated(configs, rnd):
            if ("metampi", "demo " + config) not in wr.failures and \
                    os.path.exists(os.path.join(args.build_dir, "bin", "metampi-demo")):
                demo_once(wr, cluster, config, c, d, args, idle)
        if "metampi" in [c.slug for c in live]:
            wan_recovery.recovery_once(wr.recovery, cluster, by["metampi"], desc["p2p"], args,
                                       idle)
        print(f"  between two sites: round {rnd + 1}/{args.wan_rounds} done "
              f"({time.perf_counter() - began:.0f} s)", flush=True)
