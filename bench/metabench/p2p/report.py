"""The point-to-point targets (metampi against the better of Open MPI and MPICH), the latency
and bandwidth sections of the report, and their plots, from a measure.P2pRun's results."""
import os

from metabench.formatting import describe_slowdown, human_bytes
from metabench.plots import STYLES, finish
from metabench.programs import P2P, expected_sizes
from metabench.results import best_peer

SLOWDOWN_LIMIT = 1.2


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


def display_value(program, b, value):
    """Latency in µs; bandwidth in MB/s from the message rate (None stays None)."""
    if value is None or program == "latency":
        return value
    return value * b / 1e6


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


def plot(plt, results, mpis, perfdir):
    plot_p2p(plt, results, mpis, "latency", "one-way latency, median (µs)",
             "Ping-pong latency, 2 ranks pinned to 2 cores (lower is better)",
             os.path.join(perfdir, "latency.png"))
    plot_p2p(plt, results, mpis, "bandwidth", "bandwidth, median (MB/s)",
             "Streaming bandwidth, window of 64, 2 ranks (higher is better)",
             os.path.join(perfdir, "bandwidth.png"))
