"""The threads family's report, from a measure.ThreadsRun as data: its targets (issue 18),
its section of docs/performance.md and its plot (perf/threads.png)."""
import statistics

from metabench.formatting import human_bytes
from metabench.plots import STYLES, finish
from metabench.threads.measure import (NOTHREADS, OVERLAP_BYTES, OVERLAP_OPS, THREADS, WHERE)

PREFIX = "Threads"
OVERLAP_TARGET = 90.0      # % of a 1 MiB transfer hidden across sites, progress thread on
SINGLE_COST_LIMIT = 1.02   # single-threaded 0-8 B latency, thread support built in / out


def median(tr, slug, key):
    values = tr.samples.get(slug, {}).get(key)
    return statistics.median(values) if values else None


def best_peer(tr, key, higher_is_better=False):
    peers = [v for v in (median(tr, s, key) for s in ("openmpi", "mpich")) if v is not None]
    if not peers:
        return None
    return max(peers) if higher_is_better else min(peers)


def cell(value, digits):
    return "—" if value is None else f"{value:.{digits}f}"


def ratio(a, b, digits=2):
    return "n/a" if a is None or b is None or b == 0 else f"{a / b:.{digits}f}"


def latency_sizes(tr):
    return sorted({k[2] for by in tr.samples.values() for k in by if k[0] == "latency"})


def best(tr, slug, key):
    values = tr.samples.get(slug, {}).get(key)
    return min(values) if values else None


def paired_ratio(tr, key):
    """The median over the interleaved runs of built in / built out of adjacent runs
    (measure.single_runs: the i-th run of each build are neighbours in time); None without."""
    on, off = (tr.samples.get(s, {}).get(key) or [] for s in ("metampi", NOTHREADS))
    ratios = [a / b for a, b in zip(on, off) if b]
    return statistics.median(ratios) if ratios else None


def single_cost(tr):
    """The worst ratio over 0-8 B of metampi's single-threaded latency with thread support
    built in to without (best run of each: a 2 % difference is far below what a busy
    machine does to a median of a few rounds), and its size; None if either build has no
    result."""
    pairs = [(best(tr, "metampi", ("single", b)), best(tr, NOTHREADS, ("single", b)), b)
             for b in (0, 1, 2, 4, 8)]
    pairs = [(a / o, b) for a, o, b in pairs if a is not None and o]
    return max(pairs) if pairs else None


def targets(tr):
    over = f"{PREFIX}: 1 MiB across two sites, ≥ {OVERLAP_TARGET:.0f} % hidden behind computation with the progress thread on (MPI_Isend and MPI_Iallreduce)"
    cost = (f"{PREFIX}: single-threaded 0–8 B latency with thread support built in within "
            f"{SINGLE_COST_LIMIT:.2f}× of the build without (best of the interleaved runs)")
    if tr is None:
        return [(over, ("not evaluated", "not measured")), (cost, ("not evaluated", "not measured"))]
    hidden = [(median(tr, "metampi", ("overlap", "two sites", op, "on")), op) for op in OVERLAP_OPS]
    hidden = [h for h in hidden if h[0] is not None]
    if hidden:
        worst = min(hidden)
        v_over = ("met" if worst[0] >= OVERLAP_TARGET else "not met",
                  f"{worst[1]}: {worst[0]:.0f} % hidden")
    else:
        v_over = ("not evaluated", "no result across sites")
    c = single_cost(tr)
    v_cost = (("met" if c[0] <= SINGLE_COST_LIMIT else "not met",
               f"{human_bytes(c[1])}: {c[0]:.3f}×") if c else ("not evaluated", "no result"))
    return [(over, v_over), (cost, v_cost)]


def section(tr, mpis):
    if tr is None:
        return ["## Threads", "", "Not measured in this run.", ""]
    names = [m.name for m in mpis]
    slugs = [m.slug for m in mpis]
    load = (f" Load seen before the runs: median {statistics.median(tr.busy):.0%}, worst "
            f"{max(tr.busy):.0%} of the CPUs." if tr.busy else "")
    lines = ["## Threads", "",
             "`bench/threads/` (issue 18), 2 ranks bound one per core as for point to point, "
             "each MPI initialised with `MPI_THREAD_MULTIPLE`; the MPIs take turns in every "
             "round, medians over the rounds." + load, "",
             "### Multi-threaded latency", "",
             "`latency_mt.c`, osu_latency_mt method: T threads per rank, thread t of rank 0 "
             "ping-pongs with thread t of rank 1 (tag t, `MPI_COMM_WORLD`), all pairs at once; "
             "µs one way as one pair sees it. **Lower is better.**", "",
             "| threads | size | " + " | ".join(f"{n} (µs)" for n in names) +
             " | metampi / best peer |", "|---:|---:|" + "---:|" * len(names) + "---:|"]
    for t in THREADS:
        for b in latency_sizes(tr):
            key = ("latency", t, b)
            cells = [cell(median(tr, s, key), 2) for s in slugs]
            lines.append(f"| {t} | {human_bytes(b)} | " + " | ".join(cells) +
                         f" | {ratio(median(tr, 'metampi', key), best_peer(tr, key))} |")
    lines += ["", "### Multi-threaded message rate", "",
              "`msgrate_mt.c`: T threads per rank, each pair on its own communicator (a "
              "duplicate per thread), windows of 64 × 8 B `MPI_Isend`/`MPI_Irecv` + "
              "`MPI_Waitall` and an ack (osu_mbw_mr method); messages per second of all pairs "
              "together. **Higher is better.**", "",
              "| threads | " + " | ".join(f"{n} (msg/s)" for n in names) +
              " | metampi / best peer |", "|---:|" + "---:|" * len(names) + "---:|"]
    for t in THREADS:
        key = ("rate", t)
        cells = [cell(median(tr, s, key), 0) for s in slugs]
        lines.append(f"| {t} | " + " | ".join(cells) +
                     f" | {ratio(median(tr, 'metampi', key), best_peer(tr, key, True))} |")
    lines += ["", "### Multi-threaded message rate to self", "",
              "`selfrate_mt.c`: one rank, not bound (its threads may use every core), T "
              "threads each on its own duplicate of `MPI_COMM_SELF`, windows of 64 × 8 B "
              "`MPI_Irecv` + `MPI_Isend` to itself + `MPI_Waitall`: no transport, only the "
              "library's own work per message, which threads on different communicators can "
              "do at once unless the library serialises them; messages per second of all "
              "threads together. **Higher is better.**", "",
              "| threads | " + " | ".join(f"{n} (msg/s)" for n in names) +
              " | metampi / best peer |", "|---:|" + "---:|" * len(names) + "---:|"]
    for t in THREADS:
        key = ("selfrate", t)
        cells = [cell(median(tr, s, key), 0) for s in slugs]
        lines.append(f"| {t} | " + " | ".join(cells) +
                     f" | {ratio(median(tr, 'metampi', key), best_peer(tr, key, True))} |")
    lines += ["", "### Overlap of computation and communication", "",
              f"`overlap.c`: {human_bytes(OVERLAP_BYTES)} by `MPI_Isend`/`MPI_Irecv` (rank 0 "
              "to rank 1) or `MPI_Iallreduce` (ints, `MPI_SUM`), posted, then 1.5× the "
              "transfer's time of computation without MPI calls, then `MPI_Wait`: % of the "
              "transfer hidden = 1 − (t(compute + transfer) − t(compute)) / t(transfer). "
              "Progress thread off, and on where the MPI has one: metampi "
              "`METAMPI_ASYNC_PROGRESS=0` / `1` (its default, `auto`, is on across sites), MPICH `MPIR_CVAR_ASYNC_PROGRESS=1` (with "
              "`MPI_THREAD_MULTIPLE`; its thread polls), Open MPI 4.1 has none for its "
              "shared-memory and TCP transports. Between two emulated hosts "
              "(`tests/cluster/run_on_hosts.sh 1,1`) and two emulated sites (`run_on_sites.sh "
              "--wan-mode gateways 1/1`: 5 ms, 1 Gbit/s, site gateways) metampi only. "
              "**Higher is better**; the transfer time alone (µs) in parentheses.", "",
              "| where | operation | " + " | ".join(
                  f"{n} off | {n} on" for n in names) + " |",
              "|---|---|" + "---:|---:|" * len(names)]
    for where in WHERE:
        for op in OVERLAP_OPS:
            cells = []
            for s in slugs:
                for mode in ("off", "on"):
                    h = median(tr, s, ("overlap", where, op, mode))
                    t = median(tr, s, ("transfer", where, op, mode))
                    cells.append("—" if h is None else f"{h:.0f} % ({t:.0f})")
            if any(c != "—" for c in cells):
                lines.append(f"| {where} | {op} | " + " | ".join(cells) + " |")
    lines += ["", "### What thread support costs a single-threaded program", "",
              "`p2p/latency.c` (`MPI_Init`, 0–8 B) with metampi as built (the lock is compiled "
              "in and stays off below `MPI_THREAD_MULTIPLE`: one branch per call) and with a "
              "second build of the same commit with `-DMETAMPI_THREADS=OFF` (no lock at all), "
              "alternated several times in every round; and, for comparison, metampi's "
              "`latency_mt` with 1 thread (`MPI_THREAD_MULTIPLE`: the lock is on).", "",
              "Median and best of all runs (µs); \"paired\": the median of the ratios of "
              "adjacent runs.", "",
              "| size | built in | built out | in / out | built in, best | built out, best | "
              "in / out, best | in / out, paired | MPI_THREAD_MULTIPLE, 1 thread |",
              "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for b in (0, 1, 2, 4, 8):
        key = ("single", b)
        on, off = median(tr, "metampi", key), median(tr, NOTHREADS, key)
        on_b, off_b = best(tr, "metampi", key), best(tr, NOTHREADS, key)
        mt = median(tr, "metampi", ("latency", 1, b))
        lines.append(f"| {human_bytes(b)} | {cell(on, 4)} | {cell(off, 4)} | "
                     f"{ratio(on, off, 3)} | {cell(on_b, 4)} | {cell(off_b, 4)} | "
                     f"{ratio(on_b, off_b, 3)} | "
                     f"{cell(paired_ratio(tr, key), 3)} | {cell(mt, 3)} |")
    failed = [f"- {name}: {why}" for name, why in sorted(tr.failed.items())]
    return lines + [""] + failed + ([""] if failed else []) + \
        ["![threads](perf/threads.png)", ""]


def plot(plt, tr, mpis, path):
    """Message rate against threads per MPI, and % hidden per place and mode (metampi)."""
    if tr is None:
        return
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    for m in mpis:
        color, marker = STYLES[m.slug]
        ys = [median(tr, m.slug, ("rate", t)) for t in THREADS]
        pts = [(t, y) for t, y in zip(THREADS, ys) if y is not None]
        if pts:
            left.plot(*zip(*pts), marker=marker, color=color, label=m.name)
    left.set(xlabel="threads per rank", ylabel="messages/s (8 B)", xticks=list(THREADS),
             title="Multi-threaded message rate, 2 ranks")
    left.legend()
    bars = [(f"{w}\n{op}", mode, median(tr, "metampi", ("overlap", w, op, mode)))
            for w in WHERE for op in OVERLAP_OPS for mode in ("off", "on")]
    labels = sorted({b[0] for b in bars if b[2] is not None}, key=[b[0] for b in bars].index)
    for i, mode in enumerate(("off", "on")):
        vals = [next((b[2] or 0 for b in bars if b[0] == lab and b[1] == mode), 0)
                for lab in labels]
        right.bar([x + i * 0.4 for x in range(len(labels))], vals, 0.4,
                  label=f"progress thread {mode}")
    right.set_xticks([x + 0.2 for x in range(len(labels))])
    right.set_xticklabels(labels, fontsize=8)
    right.set(ylabel="% of 1 MiB hidden", ylim=(0, 105), title="metampi: overlap")
    finish(plt, fig, right, path)
