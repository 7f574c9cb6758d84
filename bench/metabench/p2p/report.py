"""The point-to-point targets on one host (metampi against the better of Open MPI and MPICH),
the latency, bandwidth and message-rate sections of the report, and their plots, from a
measure.P2pRun's results."""
import os

from metabench.document import load_note
from metabench.formatting import describe_slowdown, human_bytes
from metabench.plots import STYLES, finish
from metabench.programs import (MSGRATE_PAIRS, P2P, expected_sizes, msgrate_program,
                                msgrate_sizes)
from metabench.results import best_peer

# Issue 23, target 1: on one host, 0-8 B latency at most 0.85x the better peer's, 1-4 MiB
# bandwidth and 1-64 B message rate (1 and 2 pairs) at least 1.05x and 1.1x its, and no size
# of latency or bandwidth slower than it.
LATENCY_LIMIT = 0.85
BANDWIDTH_GAIN = 1.05
RATE_GAIN = 1.1
TARGET_PREFIX = "Point to point on one host"


def row_values(results, program, b):
    return {slug: r.median(b) for slug, r in results[program].items()}


def ratio_to_best(results, program, b):
    """metampi / better peer at size b, or None."""
    values = row_values(results, program, b)
    best = best_peer(values, not lower_is_better(program))
    if values["metampi"] is None or not best:
        return None
    return values["metampi"] / best


def slowdown(results, program, b):
    """How many times slower metampi is than the better peer (>1: slower), or None."""
    r = ratio_to_best(results, program, b)
    if r is None:
        return None
    return r if lower_is_better(program) else (1 / r if r else float("inf"))


def lower_is_better(program):
    return program == "latency"


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
    gaps = describe_gaps(results, [p for p, _ in checks], no_metampi, no_peer)
    if worst and worst[0] > limit:
        return "not met", describe_worst(worst) + gaps
    if any(results[p]["metampi"].failed_from is not None for p, _ in no_metampi):
        return "not met", gaps[2:]
    if no_metampi or not worst:
        return "not evaluated", (describe_worst(worst) if worst else "no results") + gaps
    return "met", describe_worst(worst) + gaps


def describe_worst(worst):
    s, program, b = worst
    return f"{program_name(program)} at {human_bytes(b)}: metampi {describe_slowdown(s)} the better peer"


def program_name(program):
    """'latency', 'bandwidth', 'message rate, 2 pairs'."""
    for pairs in MSGRATE_PAIRS:
        if program == msgrate_program(pairs):
            return f"message rate, {pairs} pair{'s' if pairs > 1 else ''}"
    return program


def describe_gaps(results, programs, no_metampi, no_peer):
    """'; metampi bandwidth not available' and the like, or ''."""
    parts = []
    for program in dict.fromkeys(programs):
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
    rates = [(msgrate_program(n), b) for n in MSGRATE_PAIRS for b in msgrate_sizes()]
    return [
        (f"{TARGET_PREFIX}: latency 0–8 B at most {LATENCY_LIMIT}× the better of Open MPI "
         "and MPICH", check_target(results, [("latency", b) for b in small], LATENCY_LIMIT)),
        (f"{TARGET_PREFIX}: bandwidth 1–4 MiB at least {BANDWIDTH_GAIN}× the better peer",
         check_target(results, [("bandwidth", b) for b in large], 1 / BANDWIDTH_GAIN)),
        (f"{TARGET_PREFIX}: message rate 1–64 B, 1 and 2 pairs, at least {RATE_GAIN}× the "
         "better peer", check_target(results, rates, 1 / RATE_GAIN)),
        (f"{TARGET_PREFIX}: no size 0 B–4 MiB slower than the better peer (latency and "
         "bandwidth)", check_target(results, [(p, b) for p in P2P for b in sizes], 1.0)),
    ]


def section(p2p, mpis, args, ctx=None):
    """Latency, bandwidth and message rate; ctx (with --only p2p, whose run the full report's
    header does not describe): when, at which commit and under what load they were measured."""
    lines = []
    if ctx is not None:
        lines += [f"Measured {ctx['date']}, commit {ctx['commit']}, {args.rounds} rounds "
                  f"(`bench/run_benchmarks.py --only p2p`; launch commands and method as in "
                  f"\"How these numbers were obtained\").",
                  load_note(p2p.busy, args.wait_idle)[2:], ""]
    return (lines + p2p_section(p2p.results, mpis, "latency", args) +
            p2p_section(p2p.results, mpis, "bandwidth", args) +
            msgrate_section(p2p.results, mpis))


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


def msgrate_section(results, mpis):
    """The message rate with 1 and 2 pairs, side by side."""
    lines = ["## Message rate", "",
             "`bench/p2p/msgrate.c`, OSU method (osu_mbw_mr): with 2P ranks, rank i < P sends to "
             "rank i + P windows of 64 MPI_Isend + MPI_Waitall, the receiver posts 64 MPI_Irecv "
             "+ MPI_Waitall and sends a zero-byte ack; 10 warm-up windows, then as many timed "
             "windows as fill about 0.5 s (20 to 100000, rank 0 decides from the warm-up) "
             "between two barriers; rate = messages of all pairs / rank 0's time. The first "
             "window of every size is verified message by message. 1 pair: one rank per core, "
             "as above; 2 pairs: 4 ranks on the 2 cores, unbound (each MPI's options for more "
             "ranks than cores, as for the collectives).", "",
             "**Millions of messages per second, higher is better. Ratio = metampi / better "
             "peer: above 1 means metampi is faster.**", ""]
    head = ["size"]
    for pairs in MSGRATE_PAIRS:
        label = f"{pairs} pair{'s' if pairs > 1 else ''}"
        head += [f"{label}: {m.name}" for m in mpis] + [f"{label}: ratio"]
    lines += ["| " + " | ".join(head) + " |", "|" + "---:|" * len(head)]
    notes = {}
    for pairs in MSGRATE_PAIRS:
        for slug, note in p2p_notes(mpis, msgrate_program(pairs), "msgrate").items():
            notes.setdefault(slug, note)
    for b in msgrate_sizes():
        cells = [human_bytes(b)]
        for pairs in MSGRATE_PAIRS:
            program = msgrate_program(pairs)
            for m in mpis:
                value = results[program][m.slug].median(b)
                note = notes.get(m.slug)
                cells.append((f"— [{note[0]}]" if note else "—") if value is None else
                             f"{value / 1e6:.2f}")
            r = ratio_to_best(results, program, b)
            cells.append("n/a" if r is None else f"{r:.2f}")
        lines.append("| " + " | ".join(cells) + " |")
    lines += [""] + [f"[{i}] {text}" + "  " for i, text in sorted(set(notes.values()))]
    return lines + ["", "![message rate](perf/msgrate.png)", ""]


def p2p_notes(mpis, program, source=None):
    """{mpi slug: (note number, text)} for the MPIs whose program is unavailable or failed;
    source: the program's name when it was built (if not the program's)."""
    notes, n = {}, 0
    source = source or program
    for m in mpis:
        why = (f"not available: {m.unavailable[source]}" if source in m.unavailable else
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


def plot_msgrate(plt, results, mpis, path):
    """Log-x; a line per MPI and number of pairs (1 pair solid, 2 pairs dashed)."""
    fig, ax = plt.subplots(figsize=(9, 5))
    for pairs, style in zip(MSGRATE_PAIRS, ("-", "--")):
        program = msgrate_program(pairs)
        for m in mpis:
            points = [(b, results[program][m.slug].median(b)) for b in msgrate_sizes()]
            points = [(b, v / 1e6) for b, v in points if v is not None]
            if points:
                color, marker = STYLES[m.slug]
                ax.plot(*zip(*points), style, marker=marker, color=color,
                        label=f"{m.name}, {pairs} pair{'s' if pairs > 1 else ''}")
    ax.set_xscale("log", base=2)
    ax.set_xticks(msgrate_sizes())
    ax.set_xticklabels([human_bytes(b) for b in msgrate_sizes()])
    ax.set(xlabel="message size", ylabel="messages per second, median (millions)",
           title="Message rate, window of 64 (higher is better)")
    finish(plt, fig, ax, path)


def plot(plt, results, mpis, perfdir):
    plot_p2p(plt, results, mpis, "latency", "one-way latency, median (µs)",
             "Ping-pong latency, 2 ranks pinned to 2 cores (lower is better)",
             os.path.join(perfdir, "latency.png"))
    plot_p2p(plt, results, mpis, "bandwidth", "bandwidth, median (MB/s)",
             "Streaming bandwidth, window of 64, 2 ranks (higher is better)",
             os.path.join(perfdir, "bandwidth.png"))
    plot_msgrate(plt, results, mpis, os.path.join(perfdir, "msgrate.png"))
