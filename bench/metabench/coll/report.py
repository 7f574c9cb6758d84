"""The collective targets (metampi against the better of Open MPI and MPICH, per rank count),
the collective section of the report and its plots, from a measure.CollRun."""
import os
import statistics

from metabench.document import COLL
from metabench.formatting import describe_slowdown, human_bytes
from metabench.plots import STYLES
from metabench.programs import COLLS, COLL_TITLES
from metabench.results import best_peer
from metabench.coll.measure import COLL_NP, coll_key, coll_sizes

# Target per rank count (issue 23, target 6): metampi's latency / the better peer's, at most
# this at every collective and size. 2 ranks (one per core) is shown for information, without a
# target.
COLL_LIMIT = {4: 1.0, 8: 1.0}


def coll_ratio(coll_results, np, coll, b):
    """(metampi / better peer, metampi's latency, the better peer's), None where missing."""
    row = coll_results[np][coll]
    mine = row["metampi"].median(b)
    best = best_peer({slug: r.median(b) for slug, r in row.items()}, False)
    return (mine / best if mine is not None and best else None), mine, best


def coll_target_name(np):
    return (f"{COLL.target_prefix}, {np} ranks on 2 cores (oversubscribed): ratio ≤ "
            f"{COLL_LIMIT[np]} (at or below the better of Open MPI and MPICH) for every "
            "collective and size")


def where(np):
    """How np ranks sit on the reference machine's 2 cores."""
    return ", one per core" if np <= 2 else " on 2 cores"


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
            for np in COLL_NP if np in COLL_LIMIT]


def coll_launch(m, np):
    cmd = [os.path.basename(m.launcher[0])] + m.launcher[1:] + m.coll_opts(np) + ["-n", str(np)]
    return f"`{' '.join(cmd)} ./coll_latency`"


def coll_section(cr, mpis, args, ctx):
    """The collective part of the document (a measure.CollRun), between its markers. It says
    when and how it was measured itself, since --only coll replaces it alone."""
    coll, busy = cr.results, cr.busy
    load = ("not measured" if not busy else
            f"median {statistics.median(busy):.0%}, worst {max(busy):.0%} of the CPUs" +
            (" — **the machine was busy: these numbers are not reliable**"
             if max(busy) > 0.10 else ""))
    quick = (" **Development run** (reduced settings): not for publication."
             if args.scale < 1 or args.coll_rounds < 3 else "")
    lines = [COLL.begin, "## Collective latency", "",
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
             f"- Measured {ctx['date']}"
             f", commit {ctx['commit']}: **{args.coll_rounds} rounds**, the MPIs taking turns "
             f"within each, **median over the rounds**; {cr.elapsed / 60:.1f} minutes; "
             f"{args.coll_timeout} s timeout per run; other load just before each run: "
             f"{load}.{quick}",
             "- Each collective is a program of its own (`-DONLY_BCAST` ...), so one that an "
             "MPI lacks is *not available* on its own, and one that crashes, hangs or gives a "
             "wrong result is *failed* from that size on without taking the others along.",
             "- Open MPI's `--oversubscribe` makes its ranks yield the core while they wait; "
             "MPICH (ch4) has no such switch and polls, which is why it is far slower when "
             "oversubscribed.", "",
             "| MPI |" + "".join(f" {np} ranks{where(np)} |" for np in COLL_NP),
             "|---|" + "---|" * len(COLL_NP)]
    lines += [f"| {m.name} |" + "".join(f" {coll_launch(m, np)} |" for np in COLL_NP)
              for m in mpis]
    lines += ["", "| Target | Status | Details |", "|---|---|---|"]
    lines += [f"| {name} | **{verdict}** | {worst} |"
              for name, (verdict, worst) in coll_targets(coll, mpis, args.coll_max_bytes)]
    lines += ["", "**Latency in µs, lower is better. Ratio = metampi / better peer (the lower of "
              "Open MPI and MPICH): below 1 means metampi is faster.** \"target\": the ratio "
              "is at most " + ", ".join(f"{COLL_LIMIT[np]} with {np} ranks" for np in COLL_NP
                                        if np in COLL_LIMIT) +
              "; " + ", ".join(str(np) for np in COLL_NP if np not in COLL_LIMIT) +
              " ranks (one per core) has no target and is shown for information.", ""]
    for c in COLLS:
        lines += coll_table(coll, mpis, c, args.coll_max_bytes)
    lines += [f"![collective latency, {np} ranks](perf/{coll_plot_name(np)})" for np in COLL_NP]
    return lines + ["", COLL.end, ""]


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
        head += f" {np} ranks: metampi | Open MPI | MPICH | ratio |"
        rule += "---:|---:|---:|---:|"
        if np in COLL_LIMIT:
            head += f" target ≤ {COLL_LIMIT[np]} |"
            rule += ":---:|"
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
            row += " n/a |" if r is None else f" {r:.2f} |"
            if np in COLL_LIMIT:
                row += (" — |" if r is None else
                        f" {'met' if r <= COLL_LIMIT[np] else '**not met**'} |")
        lines.append(row)
    lines += [""] + [f"[{i}] {t}  " for i, t in enumerate(texts, 1)]
    return lines + ([""] if texts else [])


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
