#!/usr/bin/env python3
"""metampi benchmarks against Open MPI and MPICH, measured in the same run.

Builds bench/startup/init_finalize.c and bench/pingpong/pingpong.c with each MPI's own
compiler wrapper, runs them with each MPI's own launcher, and writes docs/performance.md
(absolute values and metampi/Open MPI, metampi/MPICH ratios) plus PNG plots in docs/perf/.

The machine is noisy, so the MPIs take turns within every repetition (a slow phase hits all
of them alike) and medians are reported. Timings never fail this script; a program that does
not build or run is reported as failed and makes the exit status 1 after the report is written.
Needs matplotlib (bench/setup.sh installs it for /usr/bin/python3).
"""
import argparse
import datetime
import os
import platform
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
STARTUP_NP = [1, 2, 4, 8]
PINGPONG_NP = 2
RUN_TIMEOUT = 120
# Open MPI refuses root without these; harmless for the others and when not root.
OMPI_ROOT_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


class Mpi:
    def __init__(self, name, slug, cc, launcher):
        self.name, self.slug, self.cc, self.launcher = name, slug, cc, launcher
        self.programs = {}   # program name -> path, for those that built
        self.errors = []     # human-readable failures, reported in the document

    def command(self, np, program, *args):
        return self.launcher + ["-n", str(np), self.programs[program]] + list(args)


def mpis_under_test(build):
    return [
        Mpi("metampi", "metampi", [os.path.join(build, "bin", "mpicc")],
            [os.path.join(build, "bin", "mpirun")]),
        # More ranks than cores is the point of np=8 on small machines.
        Mpi("Open MPI", "openmpi", ["mpicc.openmpi"], ["mpirun.openmpi", "--oversubscribe"]),
        Mpi("MPICH", "mpich", ["mpicc.mpich"], ["mpirun.mpich"]),
    ]


def run(cmd, timeout=RUN_TIMEOUT):
    """Returns (exit status, stdout, stderr, seconds); status 124 for a timeout, 127 if unrunnable."""
    env = dict(os.environ, **OMPI_ROOT_ENV)
    start = time.perf_counter()
    try:
        p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr, time.perf_counter() - start
    except subprocess.TimeoutExpired:
        return 124, "", f"timed out after {timeout}s", time.perf_counter() - start
    except OSError as e:
        return 127, "", str(e), time.perf_counter() - start


def build_programs(mpis, work):
    sources = {"init_finalize": "startup/init_finalize.c", "pingpong": "pingpong/pingpong.c"}
    for mpi in mpis:
        outdir = os.path.join(work, mpi.slug)
        os.makedirs(outdir, exist_ok=True)
        for name, src in sources.items():
            exe = os.path.join(outdir, name)
            status, _, err, _ = run(mpi.cc + ["-O2", os.path.join(HERE, src), "-o", exe])
            if status == 0:
                mpi.programs[name] = exe
            else:
                mpi.errors.append(f"building {name} failed: {err.strip()[:300]}")
            print(f"  build {mpi.name:8} {name}: {'ok' if status == 0 else 'FAILED'}", flush=True)


def rotated(items, k):
    k %= len(items)
    return items[k:] + items[:k]


def measure_startup(mpis, reps):
    """{mpi slug: {np: median seconds}} for `mpirun -n np init_finalize` (None: failed)."""
    samples = {m.slug: {np: [] for np in STARTUP_NP} for m in mpis}
    failed = {m.slug: set() for m in mpis}
    for np in STARTUP_NP:
        for rep in range(reps):
            for mpi in rotated(mpis, rep):
                if "init_finalize" not in mpi.programs or np in failed[mpi.slug]:
                    continue
                status, _, err, seconds = run(mpi.command(np, "init_finalize"))
                if status == 0:
                    samples[mpi.slug][np].append(seconds)
                else:
                    failed[mpi.slug].add(np)
                    mpi.errors.append(f"startup np={np} exited {status}: {err.strip()[:300]}")
        print(f"  startup np={np}: " + ", ".join(
            f"{m.name} {fmt(median_or_none(samples[m.slug][np]), 3)} s" for m in mpis), flush=True)
    return {slug: {np: (None if np in failed[slug] else median_or_none(s))
                   for np, s in per_np.items()} for slug, per_np in samples.items()}


def measure_pingpong(mpis, reps):
    """{mpi slug: {bytes: (median latency us, median bandwidth MB/s)}}, empty if failed."""
    runs = {m.slug: [] for m in mpis}
    for rep in range(reps):
        for mpi in rotated(mpis, rep):
            if "pingpong" not in mpi.programs or (rep and not runs[mpi.slug]):
                continue   # built badly or already failed once: do not retry
            status, out, err, _ = run(mpi.command(PINGPONG_NP, "pingpong"))
            if status == 0:
                runs[mpi.slug].append({int(b): (float(lat), float(bw)) for b, _, lat, bw in
                                       re.findall(r"^(\d+) (\d+) (\S+) (\S+)$", out, re.M)})
            else:
                mpi.errors.append(f"pingpong exited {status}: {err.strip()[:300]}")
        print(f"  pingpong repetition {rep + 1}/{reps} done", flush=True)
    result = {}
    for slug, rs in runs.items():
        sizes = sorted(set.intersection(*(set(r) for r in rs))) if rs else []
        result[slug] = {b: (statistics.median(r[b][0] for r in rs),
                            statistics.median(r[b][1] for r in rs)) for b in sizes}
    return result


def median_or_none(values):
    return statistics.median(values) if values else None


def fmt(value, digits):
    return "failed" if value is None else f"{value:.{digits}f}"


def ratio(a, b):
    return "n/a" if a is None or b is None or b == 0 else f"{a / b:.3g}"


def human_bytes(n):
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n // scale} {unit}"
    return f"{n} B"


def first_line(cmd, pattern=None):
    status, out, err, _ = run(cmd, timeout=30)
    for line in (out + err).splitlines():
        if line.strip() and (pattern is None or re.search(pattern, line)):
            return " ".join(line.split())
    return "unknown"


def machine_description(build):
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"^model name\s*:\s*(.+)$", f.read(), re.M)
            cpu = m.group(1).strip() if m else cpu
    except OSError:
        pass
    commit = first_line(["git", "-C", HERE, "describe", "--always", "--dirty"])
    return [
        ("Date", datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")),
        ("CPU", cpu),
        ("nproc", str(os.cpu_count())),
        ("Kernel", f"{platform.system()} {platform.release()}"),
        ("Compiler", first_line([os.path.join(build, "bin", "mpicc"), "--version"])),
        ("metampi", f"{first_line([os.path.join(build, 'bin', 'mpicc'), '-showme:version'])}"
                    f", commit {commit}"),
        ("Open MPI", first_line(["mpirun.openmpi", "--version"])),
        ("MPICH", first_line(["mpirun.mpich", "--version"], r"Version")),
    ]


def plot(startup, pingpong, mpis, perfdir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(perfdir, exist_ok=True)
    styles = {"metampi": ("tab:red", "o"), "openmpi": ("tab:blue", "s"), "mpich": ("tab:green", "^")}

    fig, ax = plt.subplots(figsize=(8, 5))
    for m in mpis:
        points = [(np, t) for np, t in startup[m.slug].items() if t is not None]
        if points:
            color, marker = styles[m.slug]
            ax.plot(*zip(*points), marker=marker, color=color, label=m.name)
    # Log scale: the launchers differ by orders of magnitude.
    ax.set_yscale("log")
    ax.set(xlabel="processes (mpirun -n)", ylabel="wall time of mpirun, median (s)",
           title="Startup: mpirun -n N init_finalize", xticks=STARTUP_NP)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(perfdir, "startup.png"), dpi=110)
    plt.close(fig)

    # index: position of the value in pingpong[slug][bytes]; both span decades, hence log-log.
    for index, (key, ylabel, title) in enumerate((
            ("latency", "one-way latency, median (µs)", "Ping-pong latency (2 ranks)"),
            ("bandwidth", "bandwidth, median (MB/s)", "Ping-pong bandwidth (2 ranks)"))):
        fig, ax = plt.subplots(figsize=(8, 5))
        for m in mpis:
            sizes = sorted(pingpong[m.slug])
            if sizes:
                color, marker = styles[m.slug]
                ax.plot(sizes, [pingpong[m.slug][b][index] for b in sizes],
                        marker=marker, color=color, label=m.name)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        all_sizes = sorted({b for m in mpis for b in pingpong[m.slug]})
        if all_sizes:
            ax.set_xticks(all_sizes)
            ax.set_xticklabels([human_bytes(b).replace(" ", "\n") for b in all_sizes])
        ax.set(xlabel="message size", ylabel=ylabel, title=title)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(perfdir, f"pingpong_{key}.png"), dpi=110)
        plt.close(fig)


def markdown(startup, pingpong, mpis, machine, args):
    by = {m.slug: m for m in mpis}
    lines = [
        "# Performance",
        "",
        "Generated by `make bench` (bench/run_benchmarks.py); do not edit by hand.",
        "All three MPIs were measured in the same run, taking turns within each repetition,",
        "so the **ratios** are the meaningful numbers on a noisy machine. Ratios are",
        "metampi / other: for times, above 1 means metampi is slower; for bandwidth, below 1",
        "means metampi is slower.",
        "",
        "metampi currently moves messages between processes over a temporary Unix-socket",
        "transport; the shared-memory transport is the next step, so the gap measured below",
        "is expected.",
        "",
        "## Machine",
        "",
        "| | |",
        "|---|---|",
    ]
    lines += [f"| {k} | {v.replace('|', '/')} |" for k, v in machine]
    lines += [
        "",
        "## Startup",
        "",
        f"Wall time of `mpirun -n N ./init_finalize` (MPI_Init, MPI_Comm_rank, MPI_Finalize), "
        f"median of {args.startup_reps} runs, in milliseconds. Open MPI runs with `--oversubscribe`.",
        "",
        "Read this with care: metampi's launcher does much less than the others today — one "
        "host, no topology discovery, no process binding, no daemons — so part of the gap will "
        "close as those features land.",
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
    lines += ["", "![startup](perf/startup.png)", "",
              "## Ping-pong",
              "",
              f"2 ranks, MPI_Send/MPI_Recv only; one-way latency = half the mean round trip; "
              f"bandwidth = size / latency (MB = 10^6 B). Median of {args.pingpong_reps} runs; "
              f"iterations per size scale down from 2000 (small) to 20 (4 MiB).",
              "",
              "| size | metampi µs | Open MPI µs | MPICH µs | lat. metampi/Open MPI | "
              "lat. metampi/MPICH | metampi MB/s | Open MPI MB/s | MPICH MB/s | "
              "bw metampi/Open MPI | bw metampi/MPICH |",
              "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    sizes = sorted({b for slug in by for b in pingpong[slug]})
    for b in sizes:
        lat = {s: pingpong[s][b][0] if b in pingpong[s] else None for s in by}
        bw = {s: pingpong[s][b][1] if b in pingpong[s] else None for s in by}
        lines.append(
            f"| {human_bytes(b)} | {fmt(lat['metampi'], 2)} | {fmt(lat['openmpi'], 2)} | "
            f"{fmt(lat['mpich'], 2)} | {ratio(lat['metampi'], lat['openmpi'])} | "
            f"{ratio(lat['metampi'], lat['mpich'])} | {fmt(bw['metampi'], 1)} | "
            f"{fmt(bw['openmpi'], 1)} | {fmt(bw['mpich'], 1)} | "
            f"{ratio(bw['metampi'], bw['openmpi'])} | {ratio(bw['metampi'], bw['mpich'])} |")
    if not sizes:
        lines.append("| (no ping-pong results) |||||||||||")
    lines += ["", "![ping-pong latency](perf/pingpong_latency.png)", "",
              "![ping-pong bandwidth](perf/pingpong_bandwidth.png)", ""]
    errors = [(m.name, e) for m in mpis for e in m.errors]
    if errors:
        lines += ["## Failures", ""] + [f"- {name}: {e}".replace("\n", " ") for name, e in errors]
        lines.append("")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True, help="metampi build tree (bin/mpicc, bin/mpirun)")
    ap.add_argument("--docs", required=True, help="where performance.md and perf/ go")
    ap.add_argument("--work", required=True, help="scratch dir for the benchmark binaries")
    ap.add_argument("--startup-reps", type=int, default=10)
    ap.add_argument("--pingpong-reps", type=int, default=3)
    args = ap.parse_args()

    mpis = mpis_under_test(os.path.realpath(args.build))
    print("building benchmark programs", flush=True)
    build_programs(mpis, args.work)
    print("measuring startup", flush=True)
    startup = measure_startup(mpis, args.startup_reps)
    print("measuring ping-pong", flush=True)
    pingpong = measure_pingpong(mpis, args.pingpong_reps)

    machine = machine_description(os.path.realpath(args.build))
    plot(startup, pingpong, mpis, os.path.join(args.docs, "perf"))
    report = os.path.join(args.docs, "performance.md")
    with open(report, "w") as f:
        f.write(markdown(startup, pingpong, mpis, machine, args))
    print(f"wrote {report} and {os.path.join(args.docs, 'perf')}/*.png")

    for m in mpis:
        for e in m.errors:
            print(f"FAILED ({m.name}): {e}", file=sys.stderr)
    sys.exit(1 if any(m.errors for m in mpis) else 0)


if __name__ == "__main__":
    main()
