"""The WAN part of docs/performance.md (between the WAN part's markers): how it was measured,
the checks, the targets and the tables, from a measure.WanRun."""
import os
import statistics

from metabench.document import WAN
from metabench.formatting import human_bytes, human_bytes_si
from metabench.mpis import SITES_HOW
from metabench.programs import COLL_TITLES, expected_sizes
from metabench.wan import cluster as wc
from metabench.wan import measure as wm
from metabench.wan import recovery as wrec
from metabench.wan.targets import (BW_FROM, BW_SHARE, COLL_LARGE, COLL_LARGE_SPEEDUP,
                                   COLL_SITE_RANKS, COLL_SMALL, COLL_SMALL_SPEEDUP, FLOOR_LIMIT,
                                   LAT_LIMIT, LAT_SMALL, MPI_SLUGS, PLAIN_LIMIT, demo_floor_ms,
                                   demo_summary, floor_us, harness_factor, link_rate, speedup,
                                   targets, value,
                                   wan_delay_us)

# the ping-pong and the stream also run the gateways in clear, the encrypted ones' yardstick
P2P_SLUGS = ("metampi", "metampi-plain") + MPI_SLUGS[1:]
PLAIN_HOW = ("the gateways' description with `[wan] encrypt = off` (the WAN streams in clear; "
             "exists for this comparison only): the ping-pong and the stream only")

# --- tables ---------------------------------------------------------------------------------


class Notes:
    """Footnotes under a table: '— [n]' in a cell, '[n] text' below."""

    def __init__(self):
        self.texts = []

    def ref(self, text):
        text = text.replace("|", "/").replace("\n", " ")
        if text not in self.texts:
            self.texts.append(text)
        return f"— [{self.texts.index(text) + 1}]"

    def lines(self):
        return [f"[{i}] {t}  " for i, t in enumerate(self.texts, 1)] + ([""] if self.texts
                                                                          else [])


def missing_reason(wr, slug, program):
    if slug in wr.unavailable:
        return f"not available: {wr.unavailable[slug]}"
    return wr.failures.get((slug, program))


def cell(wr, notes, program, slug, b, digits):
    v = value(wr, program, slug, b)
    if v is not None:
        return f"{v:.{digits}f}"
    why = missing_reason(wr, slug, program)
    return notes.ref(f"{wm.name_of(slug)}: {why}") if why else "—"


def ratio_text(a, b, digits=2):
    return "n/a" if a is None or not b else f"{a / b:.{digits}f}"


def plain(wr, program, b):
    return value(wr, program, "metampi-plain", b)


def recovery_lines(wr):
    rec = wr.recovery
    lines = ["### Recovery from a WAN cut", "",
             f"`{rec.command}` (bench/wan/recovery.c: two ranks, one per site, exchange small "
             "numbered messages back to back, checked on arrival, and print every pause longer "
             f"than 0.2 s on the wall clock); {wrec.BEFORE_S:g} s after it runs the WAN router "
             "drops every packet from the sites (`ip rule add iif s1 blackhole`, the same for "
             f"s2: silently, as a broken route would; no stream is told) for {wrec.CUT_S:g} s, "
             "then forwards again. *Recovery* = the end of the pause spanning the link's return − the "
             "return: how long traffic still stood after the link was back. Once per round, "
             f"metampi with gateways (encrypted). Target: ≤ {wrec.TARGET_S:g} s.", ""]
    if rec.samples:
        lines += [f"Recovery per cut: {', '.join(f'{x:.2f} s' for x in rec.samples)} (median "
                  f"{statistics.median(rec.samples):.2f} s)." +
                  (f" The gateways found the link broken (no heartbeat for their link "
                   f"timeout, 10 s, or a reset) and had it up again "
                   f"{', '.join(f'{x:.2f} s' for x in rec.gateway_up)} after that."
                   if rec.gateway_up else " The gateways never found the link broken (TCP "
                   "carried the streams over the cut)."), ""]
    if rec.failures:
        lines += [f"Failed runs: {'; '.join(rec.failures)}.", ""]
    return lines


def p2p_tables(wr):
    lines = []
    slugs = list(P2P_SLUGS) + [wm.RAW]
    head = "| size | " + " | ".join(wm.name_of(s) for s in slugs)
    # latency
    notes = Notes()
    lines += ["### Ping-pong latency between two sites", "",
              "One rank on s1h1, one on s2h1. One-way latency in µs (half the mean round trip), "
              "median over the rounds, **lower is better**; raw TCP is the same ping-pong over "
              "one TCP connection between the same two hosts (from 1 B; 0 B is compared with "
              f"its 1 B). The targets: metampi / raw TCP ≤ {LAT_LIMIT:.2f} and encrypted / "
              f"plaintext gateways ≤ {PLAIN_LIMIT:.2f} at 0–{LAT_SMALL} B.",
              "", head + " | gateways / raw TCP | --direct-wan / raw TCP | encrypted / "
              "plaintext |", "|---:|" + "---:|" * (len(slugs) + 3)]
    for b in expected_sizes(wm.P2P_MAX):
        raw = value(wr, "latency", wm.RAW, max(b, 1))
        cells = [cell(wr, notes, "latency", s, b, 0 if b > 64 << 10 else 1) if
                 not (s == wm.RAW and b == 0) else "n/a" for s in slugs]
        lines.append(f"| {human_bytes(b)} | " + " | ".join(cells) +
                     f" | {ratio_text(value(wr, 'latency', 'metampi', b), raw, 3)}"
                     f" | {ratio_text(value(wr, 'latency', 'metampi-direct', b), raw, 3)}"
                     f" | {ratio_text(value(wr, 'latency', 'metampi', b), plain(wr, 'latency', b), 3)} |")
    lines += [""] + notes.lines()
    # bandwidth
    notes = Notes()
    iperf = value(wr, "bandwidth", wm.IPERF, 0)
    iperf_text = (f"**{iperf:.1f} MB/s** ({iperf * 8 / 1e3:.3f} Gbit/s)" if iperf else
                  notes.ref(f"iperf3: {missing_reason(wr, wm.IPERF, 'bandwidth')}")
                  if missing_reason(wr, wm.IPERF, "bandwidth") else "—")
    lines += ["### Streaming bandwidth between two sites", "",
              "The same two ranks; MB/s (10^6 B), window of 64 messages then a reply, median "
              f"over the rounds, **higher is better**. iperf3, one TCP stream: {iperf_text}. "
              f"The target: metampi / iperf3 ≥ {BW_SHARE:.2f} from {human_bytes(BW_FROM)}.",
              "", head + " | gateways / iperf3 | --direct-wan / iperf3 | encrypted / plaintext |",
              "|---:|" + "---:|" * (len(slugs) + 3)]
    for b in [b for b in expected_sizes(wm.P2P_MAX) if b > 0]:
        cells = [cell(wr, notes, "bandwidth", s, b, 3 if b < 1024 else 1) for s in slugs]
        lines.append(f"| {human_bytes(b)} | " + " | ".join(cells) +
                     f" | {ratio_text(value(wr, 'bandwidth', 'metampi', b), iperf)}"
                     f" | {ratio_text(value(wr, 'bandwidth', 'metampi-direct', b), iperf)}"
                     f" | {ratio_text(value(wr, 'bandwidth', 'metampi', b), plain(wr, 'bandwidth', b))} |")
    return lines + [""] + notes.lines() + ["![latency and bandwidth between two sites]"
                                           "(perf/wan_p2p.png)", ""]


def coll_tables(wr):
    lines = ["### Collectives on two sites", "",
             "2 sites × 2 hosts × 2 ranks (ranks 0-3 at site 1, 4-7 at site 2), "
             "`bench/coll/coll_latency.c` as in [Collective latency](#collective-latency): "
             "latency in µs per call, the average over the ranks, median over the rounds, "
             "**lower is better**. *Speedup* = the better peer's latency / metampi's: above 1 "
             "metampi is faster than both Open MPI and MPICH. Targets (metampi with gateways): "
             f"speedup ≥ {COLL_SMALL_SPEEDUP:g} for the barrier and 4 B–"
             f"{human_bytes(COLL_SMALL)}, ≥ {COLL_LARGE_SPEEDUP:g} from "
             f"{human_bytes(COLL_LARGE)}; sizes between have no target. Sizes 4 B, "
             f"{wm.COLL_STEP * 4} B, ... {human_bytes(wm.COLL_MAX)} (a factor of "
             f"{wm.COLL_STEP}: every call costs a WAN round trip). MPI_Bcast, "
             "MPI_Allreduce: N bytes (N/4 floats, `MPI_SUM`); MPI_Alltoall: N bytes per pair "
             "of ranks.", "",
             "*Floor*: the least time a call can take on this WAN, averaged over the ranks as "
             "the benchmark does, before its last rank has what it needs from the other site: "
             f"the one-way delay ({wan_delay_us():.0f} µs) times what the benchmark's method "
             "allows — the barrier's calls run back to back (×1); between two calls of the "
             "others its own dissemination barrier releases ranks 3 and 7 one delay before the "
             f"rest, which they then wait for (×{harness_factor('allreduce'):.2f} on average, "
             "simulated and measured per rank: `harness_factor` in "
             "bench/metabench/wan/targets.py) — plus the bytes one site must send the other at "
             f"the link's rate (iperf3's, {link_rate(wr):.1f} MB/s): none for the barrier, N for "
             f"the allreduce, {COLL_SITE_RANKS} × {COLL_SITE_RANKS} × N for the alltoall. The "
             "broadcast has none (the ranks at the root's site need nothing from the WAN, and "
             "the average includes them). *Best possible* = the better "
             "peer's latency / the floor: the largest speedup any MPI could show against them; "
             "where it is below the target, the target cannot be met on this link.", ""]
    for coll in wm.COLLS:
        program = wm.coll_program(coll)
        notes = Notes()
        lines += [f"#### {COLL_TITLES[coll]}", "",
                  "| size | " + " | ".join(wm.name_of(s) for s in MPI_SLUGS) +
                  " | floor | speedup, gateways | best possible | target | speedup, "
                  "--direct-wan |",
                  "|---:|" + "---:|" * len(MPI_SLUGS) + "---:|---:|---:|:---:|---:|"]
        for b in wm.coll_sizes(coll):
            cells = [cell(wr, notes, program, s, b, 0 if (value(wr, program, s, b) or 0) >= 1e3
                          else 1) for s in MPI_SLUGS]
            s_gw, _, best = speedup(wr, coll, b, "metampi")
            s_dir, _, _ = speedup(wr, coll, b, "metampi-direct")
            f = floor_us(wr, coll, b)
            floor_text = "—" if f is None else f"{f:.0f}"
            possible = "—" if f is None or best is None else f"{best / f:.2f}"
            limit = (COLL_SMALL_SPEEDUP if coll == "barrier" or b <= COLL_SMALL else
                     COLL_LARGE_SPEEDUP if b >= COLL_LARGE else None)
            target = ("—" if limit is None or s_gw is None else
                      f"≥ {limit:g}: {'met' if s_gw >= limit else '**not met**'}")
            lines.append(f"| {'—' if coll == 'barrier' else human_bytes(b)} | " +
                         " | ".join(cells) +
                         f" | {floor_text} | {'n/a' if s_gw is None else f'{s_gw:.2f}'}"
                         f" | {possible} | {target}"
                         f" | {'n/a' if s_dir is None else f'{s_dir:.2f}'} |")
        lines += [""] + notes.lines()
    return lines + ["![collectives on two sites](perf/wan_coll.png)", ""]


def demo_table(wr):
    lines = ["### The demo on one site and on two", "",
             f"`metampi-demo {' '.join(wm.DEMO_ARGS)}` (examples/demo: a 3-D Jacobi stencil "
             "split 2×2×2, ghost faces exchanged with the six neighbours and an MPI_Allreduce "
             "of the residual every step), 8 ranks: on **one site** (4 hosts of 2 ranks on one "
             "LAN: s1h1-s1h4) and on **two sites** (s1h1, s1h2, s2h1, s2h2, 2 ranks each). Time "
             "per step in ms as the demo reports it (mean over the ranks, the first 2 steps "
             "left out), split into computation, communication within a site and across the "
             "WAN (on one site the MPI_Allreduce is local communication too); median over the "
             "rounds. *Floor* (two sites): the run's computation plus what the WAN allows at "
             "best per step — two one-way delays (the ghost faces of a step leave after the "
             "previous MPI_Allreduce heard from the other site, and this step's MPI_Allreduce "
             "needs the other site's part, computed on those faces) and the 4 faces crossing "
             "each way at iperf3's rate; the target is total / floor ≤ "
             f"{FLOOR_LIMIT:g}. Two sites / one site is what the WAN costs this "
             f"program. One site: `{wr.commands.get(('metampi', 'demo-one'), '')}`; two sites: "
             "the collectives' commands with `metampi-demo` instead of `./coll_latency`.", "",
             "| run | compute | local comm | WAN comm | total | total / one site | floor | "
             "total / floor | runs |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    notes = Notes()
    one = demo_summary(wr, "one")
    for config in wm.DEMO_CONFIGS:
        s = demo_summary(wr, config)
        why = wr.failures.get(("metampi", "demo " + config))
        if config == "gateway" and "metampi" in wr.unavailable:
            why = f"not available: {wr.unavailable['metampi']}"
        if s is None:
            mark = notes.ref(f"{wm.DEMO_TITLES[config]}: {why}") if why else "—"
            lines.append(f"| {wm.DEMO_TITLES[config]} | {mark} | | | | | | | 0 |")
            continue
        floor = demo_floor_ms(wr, config) if config != "one" else None
        lines.append(f"| {wm.DEMO_TITLES[config]} | {s['compute']:.2f} | {s['local']:.2f} | "
                     f"{s['wan']:.2f} | {s['total']:.2f} | "
                     f"{ratio_text(s['total'], one['total'] if one else None)} | "
                     f"{'—' if floor is None else f'{floor:.2f}'} | "
                     f"{ratio_text(s['total'], floor)} | {len(wr.demo[config])} |")
    checksums = {r["checksum"] for c in wm.DEMO_CONFIGS for r in wr.demo[c]}
    lines += [""] + notes.lines()
    if checksums:
        lines += [("Every run ended with the same checksum of the final field "
                   f"(`{checksums.pop()}`): the results are identical on one and two sites."
                   if len(checksums) == 1 else
                   f"**The checksums differ between runs:** {', '.join(sorted(checksums))}."),
                  ""]
    wan_one = wr.demo_wan_bytes["one"]
    if wan_one:
        lines += [f"The one-site runs put at most {human_bytes_si(max(wan_one))} on the "
                  "WAN (the check allows "
                  f"{human_bytes_si(wm.DEMO_ONE_SITE_LIMIT)}).", ""]
    return lines + ["![the demo on one site and on two](perf/wan_demo.png)", ""]


# --- the section --------------------------------------------------------------------------


def load_text(wr):
    if not wr.busy:
        return "other load: not measured"
    text = (f"other work on the machine just before each run: median "
            f"{statistics.median(wr.busy):.0%}, worst {max(wr.busy):.0%} of the CPUs")
    if wr.loadavg:
        text += (f"; load average (1 min) median {statistics.median(wr.loadavg):.1f}, "
                 f"highest {max(wr.loadavg):.1f} on {os.cpu_count()} CPUs")
    if max(wr.busy) > 0.10:
        text += (" — **the machine was shared with other work during this run: the numbers "
                 "are less reliable** (the emulated WAN and every rank share the same cores; "
                 "the MPIs that poll lose more than those that sleep)")
    return text


def checks_table(wr):
    programs = list(wm.P2P) + [wm.coll_program(c) for c in wm.COLLS]
    lines = ["| | " + " | ".join(programs) + " |", "|---|" + "---|" * len(programs)]
    for slug in list(P2P_SLUGS) + [wm.RAW, wm.IPERF]:
        cells = []
        for p in programs:
            check = wr.checks[p].get(slug)
            if check is None or (slug == "metampi-plain" and p not in wm.P2P):
                cells.append("")
                continue
            text = check.describe()
            if wr.hung.get((slug, p)):
                text += (f"; {wr.hung[(slug, p)]} runs did not exit after their results "
                         f"(ended after {wm.GRACE} s)")
            if wr.retried.get((slug, p)):
                text += (f"; {wr.retried[(slug, p)]} runs timed out and were run once "
                         "more")
            cells.append(text)
        lines.append(f"| {wm.name_of(slug)} | " + " | ".join(cells) + " |")
    demo = [f"{c}: {wr.checks['demo'][c].describe()}" for c in ("gateway", "direct")]
    return lines + ["", "The demo on two sites (at least 2 packets and 16 B per step "
                        "crossed): " + "; ".join(demo) + ".", ""]


def section(wr, mpis, args, ctx):
    """The WAN part of the document, between its markers."""
    quick = (" **Development run** (reduced settings): not for publication."
             if args.scale < 1 or args.wan_rounds < 3 else "")
    now = ctx["date"]
    lines = [WAN.begin, "## Between two sites (WAN)", "",
             "Two *emulated sites* joined by an *emulated WAN*, made for this section (and "
             "torn down after it) by `tests/cluster/vcluster.sh --sites 2 --hosts-per-site 4 "
             f"--wan-delay {wc.WAN_DELAY} --wan-rate {wc.WAN_RATE} --wanemu "
             "<build>/tests/bin/wanemu`: site 1 is the hosts s1h1-s1h4 (10.0.1.1-4), site 2 "
             "s2h1-s2h4 (10.0.2.1-4), the hosts of a site on one bridge; every packet between "
             "the sites passes the user-space WAN emulator (`wanemu`, tests/cluster/README.md: "
             f"{wc.WAN_DELAY} one way, {wc.WAN_RATE}/s in each direction, no loss) in a router "
             "namespace, so Open MPI and MPICH cross the same WAN as metampi. All hosts share "
             "this machine's cores (and so does the emulator); nothing is pinned.", "",
             "- metampi runs in two modes: with **gateways** (`mpirun --metacomputer FILE`: one "
             "gateway process per site carries all traffic between the sites) and with "
             "**`--direct-wan`** (ranks at different sites connect directly), for comparison. "
             "The targets are for the gateways, encrypted (TLS 1.3, the default); the "
             "ping-pong and the stream also run them with `[wan] encrypt = off` in the same "
             "rounds.",
             f"- Measured {now}, commit {ctx['commit']}: **{args.wan_rounds} rounds**, "
             "the contenders taking turns within each in an order rotated every round; "
             f"**median over the rounds** (the latency target's details also give the best "
             f"rounds); {wr.elapsed / 60:.1f} minutes; {args.wan_timeout} s timeout per run; "
             f"{load_text(wr)}. {ctx['iperf3']}." + quick,
             "- Iterations are cut to fit a WAN round trip of 10 ms: ping-pong "
             f"`latency {wm.P2P_MAX} {wm.LAT_SCALE * args.scale:g}` (20 round trips per size "
             f"up to 16 KiB at full scale), stream `bandwidth {wm.P2P_MAX} "
             f"{wm.BW_SCALE * args.scale:g}` (10 windows up to 16 KiB, 1 window of 64 MiB at "
             f"1 MiB), raw TCP the same, iperf3 `-t "
             f"{max(1, round(wm.IPERF_SECONDS * args.scale))}`, `coll_latency {wm.COLL_MAX} "
             f"{wm.COLL_SCALE * args.scale:g} <name> {wm.COLL_STEP}` (sizes 4 B × "
             f"{wm.COLL_STEP}^k; 0.03 s of calls per size, at least 3).",
             "- A failure here (a program that crashes, hangs, or whose traffic did not cross "
             "the WAN) is reported in the tables and never changes the runner's exit status.",
             ""]
    if wr.error:
        return lines + [f"**Not measured:** {wr.error}", "", "| Target | Status | Details |",
                        "|---|---|---|"] + [f"| {n} | **{v}** | {d} |" for n, (v, d) in
                                            targets(wr)] + ["", WAN.end, ""]
    lines += ["| contender | launch command (collectives; the ping-pong the same with one rank "
              "on s1h1 and s2h1) | what makes it use the WAN |", "|---|---|---|"]
    for slug in P2P_SLUGS:
        how = SITES_HOW.get(slug, PLAIN_HOW)
        if slug in wr.unavailable:
            how += f". **Not available here:** {wr.unavailable[slug]}"
        lines.append(f"| {wm.name_of(slug)} | "
                     f"`{wr.commands.get((slug, 'coll'), wr.commands.get((slug, 'p2p'), ''))}` | "
                     f"{how} |")
    lines += ["", "`netns_agent.sh` (bench/tcp/) is the peers' ssh, as between two hosts. "
              "Raw TCP (`bench/tcp/raw_tcp`, server on s2h1, client on s1h1, with the same "
              "max size and scale) and iperf3 (`iperf3 -s -1` on s2h1, `iperf3 -c 10.0.2.1 "
              "-J` on s1h1, its receiver's rate) run between the same two hosts as the "
              "ping-pong.", "",
              "**Checked on every run:** the bytes and packets through the WAN router's "
              "interface to site 1 (`ip -s link`, both directions: everything between the "
              "sites) must be at least what the program timed: the ping-pong 2 × size × round "
              "trips and 2 packets per round trip, the stream 64 × size × windows, iperf3 the "
              "bytes its receiver got, a barrier 2 "
              "packets per call, a broadcast N bytes and 1 packet per call, an allreduce 2N "
              "bytes and 2 packets, an alltoall 2 × 4 × 4 × N bytes and 2 packets (4 ranks per "
              "site). A run that fails the check is discarded and the contender *failed*. A "
              "run that printed all its results and then did not exit is ended after "
              f"{wm.GRACE} s and keeps its results (counted below); one that timed out "
              "before all its results is run once more in the same round (counted too; what "
              "it printed is dropped), and fails only if it times out again.", ""]
    if wr.isolated:
        lines += [f"**Gateway mode, checked too:** during every gateway-mode run of the "
                  f"collectives and the demo, the hosts without a gateway "
                  f"({', '.join(sorted(wr.isolated))}) had no route to the other site (it was "
                  "taken away before the run and put back after), so everything their ranks "
                  "exchanged with the other site went through their site's gateway: a rank that "
                  "connected across the WAN itself would have failed the run. (The ping-pong's "
                  "ranks run on the gateway hosts.)", ""]
    lines += checks_table(wr)
    if wr.left_behind:
        lines += [f"{wr.left_behind} processes were left on the hosts after runs (and ended "
                  "before the next).", ""]
    lines += ["| Target | Status | Details |", "|---|---|---|"]
    lines += [f"| {n} | **{v}** | {d} |" for n, (v, d) in targets(wr)]
    lines += [""] + p2p_tables(wr) + recovery_lines(wr) + coll_tables(wr) + demo_table(wr)
    return lines + [WAN.end, ""]
