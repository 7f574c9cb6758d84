"""Collective I/O (bench/io/io_bandwidth.c): MPI_File_write_at_all and read_at_all of the
demo's checkpoint (a G^3 grid of doubles in blocks over a 3-D grid of 4 ranks, each block
in a local array with ghost layers) against one process's write()/pread() of the same bytes;
the rounds, issue 22's target, the section of the report and its plot."""
import re

from metabench.formatting import fmt, human_bytes
from metabench.plots import STYLES, finish
from metabench.process import first_error_line, run
from metabench.results import median_or_none
from metabench.schedule import rotated

IO_NP = 4
IO_GRID = 160        # 160^3 doubles: 31 MiB
IO_GRID_QUICK = 64
IO_REPS = 5          # repetitions per run (the program prints their median)
OPS = ("write_all", "read_all")
LIMITS = ("posix_write", "posix_read")
OP_TITLES = {"write_all": "MPI_File_write_at_all", "read_all": "MPI_File_read_at_all",
             "posix_write": "one write() by one process",
             "posix_read": "one pread() by one process"}


def parse_io(out):
    """{op: MB/s} from io_bandwidth's output."""
    return {m.group(1): float(m.group(3))
            for m in re.finditer(r"^(write_all|read_all|posix_write|posix_read) (\d+) "
                                 r"([\d.]+)$", out, re.M)}


class IoResult:
    """Per MPI: samples per op over the rounds, the bytes moved, and why a run failed."""

    def __init__(self):
        self.samples = {}
        self.bytes = 0
        self.failed = None

    def median(self, op):
        return median_or_none(self.samples.get(op, []))


def io_grid(args):
    return IO_GRID if args.scale >= 1 else IO_GRID_QUICK


def measure_io(mpis, args, idle, busy):
    """{mpi slug: IoResult}; the MPIs take turns within every round. Files go to args.work."""
    results = {m.slug: IoResult() for m in mpis}
    grid = io_grid(args)
    for rnd in range(args.rounds):
        for mpi in rotated(mpis, rnd):
            r = results[mpi.slug]
            if "io_bandwidth" not in mpi.programs:
                continue
            idle.before_run(busy)
            cmd = mpi.launcher + mpi.oversub_opts + ["-n", str(IO_NP),
                                                     mpi.programs["io_bandwidth"], args.work,
                                                     str(grid), str(IO_REPS)]
            status, out, err, seconds = run(cmd, args.timeout)
            for op, v in parse_io(out).items():
                r.samples.setdefault(op, []).append(v)
            m = re.search(r"^write_all (\d+) ", out, re.M)
            if m:
                r.bytes = int(m.group(1))
            if status != 0 or "ERROR" in out:
                r.failed = f"exit status {status}: {first_error_line(err + out)}"
                mpi.failed.setdefault("io_bandwidth", r.failed)
            print(f"    io {mpi.name:8} {seconds:6.1f} s "
                  f"{'ok' if status == 0 else 'FAILED: ' + r.failed}", flush=True)
        print(f"  io round {rnd + 1}/{args.rounds} done", flush=True)
    return results


def best_peer(io, op):
    peers = [io[p].median(op) for p in ("openmpi", "mpich") if p in io]
    peers = [v for v in peers if v is not None]
    return max(peers) if peers else None


def io_targets(io):
    """Issue 22: collective write and read bandwidth at or above the better peer's."""
    ratios, missing = [], False
    for op in OPS:
        mine, peer = io["metampi"].median(op), best_peer(io, op)
        if mine is None:
            missing = True
        elif peer is not None:
            ratios.append((mine / peer, op))
    if not ratios:
        verdict = ("not evaluated", "no results")
    else:
        worst = min(ratios)
        verdict = ("met" if worst[0] >= 1.0 and not missing else "not met",
                   f"{OP_TITLES[worst[1]]}: metampi {worst[0]:.2f}x the better peer's bandwidth"
                   + ("; metampi results missing" if missing else ""))
    return [("Collective I/O: write_at_all and read_at_all of the demo's 3-D grid at or "
             "above the better peer's bandwidth", verdict)]


def io_section(io, mpis):
    nbytes = max((r.bytes for r in io.values()), default=0)
    lines = ["## Collective I/O (one host)", "",
             f"`bench/io/io_bandwidth.c`: the demo's checkpoint, a grid of "
             f"{human_bytes(nbytes)} of doubles split in blocks over {IO_NP} ranks "
             "(`MPI_Dims_create`), each block in a local array with one ghost layer (memory "
             "type: the interior subarray; file type: the block's subarray of the global "
             f"grid), written with `MPI_File_write_at_all` and read back with "
             f"`MPI_File_read_at_all`; the median of {IO_REPS} repetitions per run, then the "
             "median over the rounds. The files sit in the page cache (no sync is timed, for "
             "any MPI). The limit: one process `write()`s and `pread()`s the same number of "
             "bytes from one contiguous buffer.", "",
             "**Higher is better. Ratio = metampi / better peer: above 1 means metampi is "
             "faster.**", "",
             "| operation | " + " | ".join(f"{m.name} (MB/s)" for m in mpis) +
             " | metampi / best peer |",
             "|---|" + "---:|" * len(mpis) + "---:|"]
    for op in OPS + LIMITS:
        cells = [fmt(io[m.slug].median(op), 1) if m.slug in io else "—" for m in mpis]
        mine, peer = io["metampi"].median(op), best_peer(io, op)
        ratio = ("n/a" if op in LIMITS or mine is None or peer is None
                 else f"{mine / peer:.2f}")
        lines.append(f"| {OP_TITLES[op]} | " + " | ".join(cells) + f" | {ratio} |")
    failed = [f"{m.name}: {io[m.slug].failed}" for m in mpis
              if m.slug in io and io[m.slug].failed]
    return lines + [""] + [f"- {f}" for f in failed] + \
        ["", "![collective I/O bandwidth](perf/io.png)", ""]


def plot_io(plt, io, mpis, path):
    """Grouped bars: MB/s per operation and MPI, the one-process limit as a line per op."""
    fig, ax = plt.subplots(figsize=(8, 4.5))
    width = 0.8 / max(len(mpis), 1)
    for i, m in enumerate(mpis):
        color, _ = STYLES[m.slug]
        vals = [io[m.slug].median(op) or 0 for op in OPS]
        ax.bar([x + i * width for x in range(len(OPS))], vals, width, color=color, label=m.name)
    for x, limit in enumerate(LIMITS):
        # the machine's limit: the best any run saw (the other ranks of a run may be polling)
        v = max((io[m.slug].median(limit) or 0 for m in mpis if m.slug in io), default=0)
        if v:
            ax.hlines(v, x - width / 2, x + width * (len(mpis) - 0.5), colors="black",
                      linestyles="dashed", label="one process, write()/pread()" if x == 0
                      else None)
    ax.set_xticks([x + width * (len(mpis) - 1) / 2 for x in range(len(OPS))])
    ax.set_xticklabels([OP_TITLES[op] for op in OPS])
    ax.set_yscale("log")
    ax.set(ylabel="MB/s, median", title=f"Collective I/O of the demo's grid, {IO_NP} ranks")
    finish(plt, fig, ax, path)
