"""The targets between two hosts (metampi against raw TCP, iperf3 and the better of Open MPI
and MPICH), the section of the report and its plots, from a measure.TcpRun."""
import os
import statistics

from metabench.document import TCP
from metabench.formatting import describe_slowdown, fmt, human_bytes
from metabench.limits import IPERF, RAW
from metabench.mpis import TWO_HOSTS_HOW
from metabench.plots import STYLES, finish, pyplot
from metabench.programs import MAX_BYTES, P2P, expected_sizes
from metabench.tcp.measure import IPERF_SECONDS, TCP_NAMES
from metabench.tcp.rma import tcp_rma_table, tcp_rma_target

TCP_LAT_LIMIT = 1.05        # metampi 0-8 B latency / raw TCP ping-pong, at most
TCP_MID_LIMIT = 1.20        # metampi 4-32 KiB latency / raw TCP (the eager path's extra copy)
TCP_BW_SHARE = 0.95         # metampi 1-4 MiB bandwidth / iperf3, at least
TCP_SMALL = 8               # "small" latency sizes: 0 ... this
TCP_MID = (4 << 10, 32 << 10)  # "medium" latency sizes, both ends included
TCP_LARGE = 1 << 20         # "large" bandwidth sizes: this ... max_bytes
# How the contenders besides the MPIs are drawn.
TCP_STYLES = {RAW: ("black", "x"), IPERF: ("tab:gray", None)}


def tcp_value(tr, program, slug, b):
    r = tr.results[program].get(slug)
    return None if r is None else r.median(b)


def tcp_mid_target(tr, max_bytes):
    """Latency at the medium sizes (the eager path and its copy) against raw TCP."""
    lo, hi = TCP_MID
    name = (f"{TCP.target_prefix}: latency {human_bytes(lo)}–{human_bytes(hi)} within "
            f"{TCP_MID_LIMIT:.2f}× of raw TCP ping-pong")
    if tr.error:
        return name, ("not evaluated", f"not measured: {tr.error}")
    ratios, missing = [], []
    for b in [b for b in expected_sizes(max_bytes) if lo <= b <= hi]:
        mine = tcp_value(tr, "latency", "metampi", b)
        raw = tcp_value(tr, "latency", RAW, b)
        if mine is None or raw is None:
            missing.append(f"{'metampi' if mine is None else 'raw TCP'} at {human_bytes(b)}")
        else:
            ratios.append((mine / raw, b))
    if max_bytes < hi:
        missing.append(f"sizes up to {human_bytes(hi)} (--max-bytes)")
    parts = []
    if ratios:
        w = max(ratios)
        parts.append(f"worst {human_bytes(w[1])}: metampi {w[0]:.2f}× raw TCP "
                     f"({fmt(tcp_value(tr, 'latency', 'metampi', w[1]), 2)} vs "
                     f"{fmt(tcp_value(tr, 'latency', RAW, w[1]), 2)} µs)")
    if missing:
        parts.append("missing: " + ", ".join(missing))
    failed = any(s == "metampi" and p == "latency" for s, p in tr.failures)
    verdict = ("not met" if failed or any(r > TCP_MID_LIMIT for r, _ in ratios) else
               "not evaluated" if missing or not ratios else "met")
    return name, (verdict, "; ".join(parts) or "no results")


def tcp_targets(tr, max_bytes):
    """The targets between two hosts of the performance issue, as (name, (verdict,
    details))."""
    lat_name = (f"{TCP.target_prefix}: latency 0–{TCP_SMALL} B within "
                f"{TCP_LAT_LIMIT - 1:.0%} of raw TCP ping-pong (1–{TCP_SMALL} B; 0 B against "
                "1 B) and below Open MPI's and MPICH's")
    bw_name = (f"{TCP.target_prefix}: bandwidth {human_bytes(TCP_LARGE)}–"
               f"{human_bytes(max_bytes if max_bytes >= TCP_LARGE else MAX_BYTES)} at least "
               f"{TCP_BW_SHARE:.0%} of iperf3 "
               "(one TCP stream)")
    if tr.error:
        why = f"not measured: {tr.error}"
        return [(lat_name, ("not evaluated", why)), tcp_mid_target(tr, max_bytes),
                (bw_name, ("not evaluated", why)), tcp_rma_target(tr, TCP.target_prefix)]

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
            tcp_mid_target(tr, max_bytes),
            (bw_name, (bw, "; ".join(parts_b) or "no results")),
            tcp_rma_target(tr, TCP.target_prefix)]


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


def tcp_section(tr, mpis, args, ctx):
    """The TCP part of the document, between its markers; it says when and how it was measured
    itself, since --only tcp replaces it alone."""
    busy = tr.busy
    load = ("not measured" if not busy else
            f"median {statistics.median(busy):.0%}, worst {max(busy):.0%} of the CPUs" +
            (" — **the machine was busy: these numbers are not reliable** (the MPIs poll "
             "while they wait, raw TCP and iperf3 sleep in the kernel, so sharing the cores "
             "with other work costs the MPIs far more)" if max(busy) > 0.10 else ""))
    quick = (" **Development run** (reduced settings): not for publication."
             if args.scale < 1 or args.rounds < 3 else "")
    lines = [TCP.begin, "## Between two hosts (TCP)", "",
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
             "polling receives as the MPIs poll, no framing; sizes from 1 B) and iperf3 (one TCP stream, "
             f"`iperf3 -s -1` on h2, `iperf3 -c 10.0.0.2 -t {max(1, round(IPERF_SECONDS * args.scale))} -J` "
             "on h1; its receiver's rate). raw TCP and iperf3 are server on h2, client on h1.",
             f"- Measured {ctx['date']}"
             f", commit {ctx['commit']}: **{args.rounds} rounds**, metampi, Open MPI, MPICH, "
             "raw TCP (and iperf3) taking turns within each, in rotating order; **median over "
             f"the rounds**; {tr.elapsed / 60:.1f} minutes; {args.timeout} s timeout per "
             f"run; other load just before each run: {load}. {ctx['iperf3']}."
             + quick,
             "- A failure here (a program that crashes, hangs, or whose traffic did not cross "
             "the link) is reported in the tables and never changes the runner's exit status.",
             ""]
    if tr.error:
        lines += [f"**Not measured:** {tr.error}", ""]
    else:
        lines += ["| MPI | launch command | what makes it use the link |", "|---|---|---|"]
        lines += [f"| {m.name} | `{tr.commands.get(m.slug, '')}` | {TWO_HOSTS_HOW[m.slug]} |"
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
        lines += [""] + tcp_tables(tr, mpis, args) + tcp_rma_table(tr, mpis)
        lines += ["![latency between two hosts](perf/tcp_latency.png)",
                  "![bandwidth between two hosts](perf/tcp_bandwidth.png)"]
    return lines + ["", TCP.end, ""]


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
                      "metampi / raw TCP: within the targets at ≤ "
                      f"{TCP_LAT_LIMIT:.2f} at 0–{TCP_SMALL} B (0 B is compared with raw "
                      f"TCP's 1 B) and ≤ {TCP_MID_LIMIT:.2f} at {human_bytes(TCP_MID[0])}–"
                      f"{human_bytes(TCP_MID[1])}; metampi / "
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
