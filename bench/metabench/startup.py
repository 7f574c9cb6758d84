"""Startup: the wall time of `mpirun -n N init_finalize` (bench/startup/init_finalize.c) for
N = 1, 2, 4, 8, its section of the report and its plot."""
import os

from metabench.formatting import fmt
from metabench.plots import STYLES, finish
from metabench.process import first_error_line, run
from metabench.results import median_or_none
from metabench.schedule import rotated

STARTUP_NP = [1, 2, 4, 8]


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


def plot(plt, startup, mpis, perfdir):
    plot_startup(plt, startup, mpis, os.path.join(perfdir, "startup.png"))
