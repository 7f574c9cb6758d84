"""The scale family's report, from a measure.ScaleRun as data: its targets (issue 23, target 5),
its section of docs/performance.md and its plot (perf/scale.png)."""
import statistics

from metabench.plots import STYLES, finish
from metabench.scale.measure import SCALE_NP

PREFIX = "Scale on one host"
TARGET_NP = (64, 128, 256)
# "Memory per rank that does not grow linearly with the ranks on the host", read as: from 64
# to 256 ranks (4× the ranks) the memory per rank grows by at most 25 %.
GROWTH_LIMIT = 1.25
PEERS = ("openmpi", "mpich")
# metampi's shared-memory segments as src/transport/shm sizes them (defaults, layout.h): one
# per rank, a page of header and, per local peer, 256 B of control words and C cells of 64 B
# (C = 128 halved while C * (N - 1) > 4096, at least 16), packed and rounded up to a page, then
# a data ring of the largest power of two <= 16 MiB / (N - 1), within 128 KiB .. 1 MiB
# (transport/shm/shm.c, METAMPI_SHM_RING_BYTES).
SHM_PAGE, SHM_CTL = 4096, 256


def shm_cells(np):
    cells = 128
    while cells > 16 and cells * (np - 1) > 4096:
        cells //= 2
    return cells


def shm_ring_bytes(np):
    ring = 1 << 20
    while ring > 128 << 10 and ring * (np - 1) > 16 << 20:
        ring //= 2
    return ring


def shm_backed_at_start(np):
    """What of a segment has memory before any ring is used: header, control words, cells."""
    ctl = (np - 1) * (SHM_CTL + shm_cells(np) * 64)
    return SHM_PAGE + (ctl + SHM_PAGE - 1) // SHM_PAGE * SHM_PAGE


def shm_segment_bytes(np):
    return shm_backed_at_start(np) + (np - 1) * shm_ring_bytes(np)


def median(sr, slug, np, key):
    """Over the runs that succeeded (a failed run is listed under its table)."""
    runs = sr.samples.get(slug, {}).get(np, [])
    return statistics.median(r[key] for r in runs) if runs else None


def pss_total(sr, slug, np):
    """Σ Pss of the ranks and the launcher's processes (kB)."""
    a, b = median(sr, slug, np, "pss"), median(sr, slug, np, "launcher_pss")
    return None if a is None or b is None else a + b


def per_rank(value_kb, np):
    return None if value_kb is None else value_kb / np


def better_peer(sr, np, getter):
    values = [v for v in (getter(sr, s, np) for s in PEERS) if v is not None]
    return min(values) if values else None


def total(sr, slug, np):
    return median(sr, slug, np, "total")


def seconds(sr, slug, np):
    return median(sr, slug, np, "seconds")


def slope(sr, slug, getter):
    """Least-squares slope of memory per rank (kB) against N over the N measured: kB per
    extra rank on the host; None with fewer than two points."""
    pts = [(np, getter(sr, slug, np) / np) for np in SCALE_NP if getter(sr, slug, np)]
    if len(pts) < 2:
        return None
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    den = sum((x - mx) ** 2 for x, _ in pts)
    return sum((x - mx) * (y - my) for x, y in pts) / den if den else None


def mb(kb, digits=1):
    return "—" if kb is None else f"{kb / 1024:.{digits}f}"


def ratio(a, b):
    return "n/a" if a is None or b is None or b == 0 else f"{a / b:.2f}"


def targets(sr):
    both = (f"{PREFIX}: at 64, 128 and 256 ranks (oversubscribed), startup time and total "
            "memory of the job at or below Open MPI's")
    growth = (f"{PREFIX}: memory per rank does not grow linearly with the ranks on the host "
              f"(per rank at 256 ranks ≤ {GROWTH_LIMIT}× per rank at 64)")
    if sr is None:
        return [(both, ("not evaluated", "not measured")),
                (growth, ("not evaluated", "not measured"))]
    worst = []
    for np in TARGET_NP:
        for what, getter in (("startup", seconds), ("total memory", total)):
            m, o = getter(sr, "metampi", np), getter(sr, "openmpi", np)
            if m is not None and o:
                worst.append((m / o, f"{what} at {np} ranks: {m / o:.2f}× Open MPI's"))
    missing = [np for np in TARGET_NP if total(sr, "metampi", np) is None or
               total(sr, "openmpi", np) is None]
    if not worst:
        v_both = ("not evaluated", "no result")
    else:
        w = max(worst)
        v_both = ("met" if w[0] <= 1 and not missing else "not met",
                  w[1] + (f"; no result at {missing}" if missing else ""))
    lo, hi = per_rank(total(sr, "metampi", 64), 64), per_rank(total(sr, "metampi", 256), 256)
    if lo and hi:
        g = hi / lo
        k = slope(sr, "metampi", total)
        v_growth = ("met" if g <= GROWTH_LIMIT else "not met",
                    f"{hi / 1024:.1f} MB per rank at 256, {lo / 1024:.1f} at 64: {g:.2f}×; "
                    f"slope {k:.0f} kB per extra rank")
    else:
        v_growth = ("not evaluated", "no result at 64 or 256 ranks")
    return [(both, v_both), (growth, v_growth)]


def section(sr, mpis):
    if sr is None:
        return ["## Scale on one host", "", "Not measured in this run.", ""]
    load = (f" Load seen before the runs: median {statistics.median(sr.busy):.0%}, worst "
            f"{max(sr.busy):.0%} of the CPUs." if sr.busy else "")
    lines = [
        "## Scale on one host", "",
        "`bench/startup/scale_memory.c` at N = " + ", ".join(map(str, SCALE_NP)) + " ranks on "
        "this machine's cores, oversubscribed and not bound (metampi `mpirun --bind-to none`, "
        "`mpirun.openmpi --oversubscribe --bind-to none`, `mpirun.mpich -bind-to none`): "
        "`MPI_Init`, `MPI_Allreduce`, `MPI_Alltoall` of 64 B per peer (every rank has talked to "
        "every other), `MPI_Barrier`, then each rank reads its `/proc/self/smaps_rollup` and "
        f"the shared-memory files it maps. {sr.reps} runs per MPI and N, MPIs in turns rotated "
        f"every run, medians; {sr.timeout} s timeout per run." + load, "",
        "- **startup**: wall time of the whole `mpirun` (start, the collectives, the "
        "measurement, `MPI_Finalize`, exit).",
        "- **Σ Pss**: the Pss of every rank and of the launcher's processes (the outermost "
        "ancestor of rank 0 whose command line names the program, i.e. `mpirun` or "
        "`mpiexec`, and its other descendants, e.g. MPICH's `hydra_pmi_proxy`; their sum is "
        "the column *launcher Pss*). Pss divides shared "
        "pages among the processes that map them. **Σ Rss** counts shared pages once per "
        "process: it overstates what the job costs by the pages the ranks share (libraries, "
        "shared-memory segments).",
        "- **total**: what the job holds in memory: Σ (Pss − Pss_Shmem) + the allocated bytes "
        "of every distinct shared-memory file (tmpfs, memfd, SysV; `st_blocks` through "
        "`/proc/PID/map_files`, each file once). Pss alone misses shared-memory pages that are "
        "allocated and mapped by nobody (pages of a shared-memory file that no process of the "
        "job touched).",
        "- Ratios are metampi / the better peer (the lower of Open MPI and MPICH): below 1 "
        "means metampi uses less.", ""]
    names = {m.slug: m.name for m in mpis}
    slugs = [m.slug for m in mpis]
    for np in SCALE_NP:
        lines += [f"### {np} ranks", "",
                  "| MPI | startup (s) | total (MB) | total per rank (MB) | Σ Pss (MB) | "
                  "Pss per rank (MB) | Σ Rss (MB) | shared-memory files (MB) | "
                  "launcher Pss (MB) |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for s in slugs:
            t, p = total(sr, s, np), pss_total(sr, s, np)
            rss = median(sr, s, np, "rss")
            sec = seconds(sr, s, np)
            lines.append(
                f"| {names[s]} | {'—' if sec is None else f'{sec:.2f}'} | {mb(t)} | "
                f"{mb(per_rank(t, np), 2)} | {mb(p)} | {mb(per_rank(p, np), 2)} | {mb(rss)} | "
                f"{mb(median(sr, s, np, 'shm_file_kb'))} | "
                f"{mb(median(sr, s, np, 'launcher_pss'))} |")
        lines += ["", f"metampi / better peer: startup "
                  f"{ratio(seconds(sr, 'metampi', np), better_peer(sr, np, seconds))}, total "
                  f"{ratio(total(sr, 'metampi', np), better_peer(sr, np, total))}, Σ Pss "
                  f"{ratio(pss_total(sr, 'metampi', np), better_peer(sr, np, pss_total))}.", ""]
        fails = [f"- {names[s]}: failed after {len(sr.samples[s][np])} of {sr.reps} runs: "
                 f"{sr.failed[s][np].replace('|', '/')}" for s in slugs if np in sr.failed[s]]
        fails += [f"- {names[s]}: not run (failed at {min(sr.failed[s])} ranks)" for s in slugs
                  if sr.failed[s] and np > min(sr.failed[s])]
        lines += fails + ([""] if fails else [])
    lines += ["### Growth of memory per rank with N", "",
              "Least-squares slope of memory per rank against the ranks on the host, over the N "
              "measured: kB per extra rank. A constant cost per peer makes memory per rank grow "
              "linearly with N (and the job's quadratically).", "",
              "| MPI | total: kB per extra rank | Σ Pss: kB per extra rank |", "|---|---:|---:|"]
    for s in slugs:
        a, b = slope(sr, s, total), slope(sr, s, pss_total)
        lines.append(f"| {names[s]} | {'—' if a is None else f'{a:.1f}'} | "
                     f"{'—' if b is None else f'{b:.1f}'} |")
    lines += ["", "### One rank by kind of mapping", "",
              "Rank 0's own Pss (MB) by kind of mapping, read with its rollup: private (heap, "
              "stack, anonymous memory), program and libraries, and shared mappings (shared-memory "
              "segments, its own and its peers'); and how many shared mappings it has and "
              "their size (address space, MB).", "",
              "| MPI | N | private | program and libraries | shared | shared mappings | "
              "their size (MB) |", "|---|---:|---:|---:|---:|---:|---:|"]
    for s in slugs:
        for np in SCALE_NP:
            if median(sr, s, np, "total") is None:
                continue
            maps = median(sr, s, np, "r0_shared_maps")
            lines.append(f"| {names[s]} | {np} | {mb(median(sr, s, np, 'r0_private_pss'), 2)} | "
                         f"{mb(median(sr, s, np, 'r0_file_pss'), 2)} | "
                         f"{mb(median(sr, s, np, 'r0_shared_pss'), 2)} | {maps:.0f} | "
                         f"{mb(median(sr, s, np, 'r0_shared_size'), 0)} |")
    lines += ["", "### What grows in metampi's memory per rank", "",
              "Each rank owns one shared-memory segment for the frames it receives "
              "(`src/transport/shm/`, docs/shm-transport.md), with, per other rank on the host, "
              "256 B of control words, C cells of 64 B (128, halved while C × (N − 1) > 4096, "
              "at least 16) and a data ring of the largest power of two ≤ 16 MiB / (N − 1), "
              "between 128 KiB and 512 KiB. The control words and cells of all pairs are packed "
              "and get memory when the job starts; a ring's pages only when its sender's frames "
              "first reach them (until 2026-11-27 `posix_fallocate` gave every ring its memory "
              "at startup: 9.35 GB for the job at 256 ranks; until 2026-11-28 a pair took a page "
              "of control words and 128 cells, 12 KiB, and a whole ring at its first long frame: "
              "1.07 GB at 256 ranks). What the defaults give, against what was measured:", "",
              "| N | cells per peer | ring per peer | segment per rank, address space (MB) | all segments at "
              "startup (MB) | measured shared-memory files (MB) | measured Σ Pss_Shmem of "
              "the ranks (MB) |",
              "|---:|---:|---:|---:|---:|---:|---:|"]
    for np in SCALE_NP:
        seg = shm_segment_bytes(np) / 1024
        start = shm_backed_at_start(np) / 1024
        lines.append(f"| {np} | {shm_cells(np)} | {shm_ring_bytes(np) >> 10} KiB | {mb(seg)} | "
                     f"{mb(start * np, 0)} | "
                     f"{mb(median(sr, 'metampi', np, 'shm_file_kb'), 0)} | "
                     f"{mb(median(sr, 'metampi', np, 'pss_shmem'))} |")
    lines += ["", "So the segments' control part is about 256 KiB + 256 B × (N − 1) per rank, "
              "plus the ring pages the ranks use; `MPI_Alltoall` itself goes through the "
              "collectives' own area (`src/coll/shm`, one per communicator, at most 8 MiB of "
              "slots by default). What grew per peer in a rank's private memory (read "
              "with a malloc trace at 128 ranks): the entry array of the `MPI_Alltoall`'s "
              "schedule (`src/core/schedule.c`, two entries of about 570 B per peer), which "
              "the finished schedules kept for reuse until 2026-11-28 (they now keep at most "
              "64 entries: at 256 ranks 1.59 MB per rank instead of 2.0), and datatype "
              "programs (`src/datatype/engine`, 63 growths of 2240 B).", "",
              "![scale](perf/scale.png)", ""]
    return lines


def plot(plt, sr, mpis, path):
    """Memory per rank (total, and Σ Pss dashed) and startup time against N."""
    if sr is None:
        return
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 5.5))
    for m in mpis:
        color, marker = STYLES[m.slug]
        for getter, style, label in ((total, "-", "total"), (pss_total, "--", "Σ Pss")):
            pts = [(np, getter(sr, m.slug, np) / np / 1024) for np in SCALE_NP
                   if getter(sr, m.slug, np)]
            if pts:
                left.plot(*zip(*pts), style, marker=marker, color=color,
                          label=f"{m.name} {label}")
        pts = [(np, seconds(sr, m.slug, np)) for np in SCALE_NP
               if seconds(sr, m.slug, np) is not None]
        if pts:
            right.plot(*zip(*pts), marker=marker, color=color, label=m.name)
    left.set_yscale("log")
    left.set(xlabel="ranks on the host", ylabel="memory per rank (MB)", xticks=list(SCALE_NP),
             title="Memory per rank (total; Σ Pss dashed)")
    left.grid(True, which="both", alpha=0.3)
    left.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=3)
    right.set_yscale("log")
    right.set(xlabel="ranks on the host", ylabel="wall time of mpirun, median (s)",
              xticks=list(SCALE_NP), title="Startup: mpirun -n N scale_memory")
    finish(plt, fig, right, path)
