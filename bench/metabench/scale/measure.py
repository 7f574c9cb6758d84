"""The scale family's rounds: for each N, each MPI runs `mpirun -n N scale_memory`
(oversubscribed, not bound) in turns rotated every repetition; the wall time of mpirun and the
memory line rank 0 prints. A run that fails or times out is reported, not retried, and the MPI
is not run at larger N; only metampi's failures are the runner's (its exit status)."""
import re

from metabench.process import first_error_line, run
from metabench.schedule import rotated

SCALE_NP = (16, 64, 128, 256)
PROGRAM = "scale_memory"
KEYS = ("rss", "pss", "pss_shmem", "launcher_procs", "launcher_rss", "launcher_pss",
        "launcher_pss_shmem", "shm_files", "shm_file_kb", "shm_unknown", "total",
        "r0_private_pss", "r0_file_pss", "r0_shared_pss", "r0_shared_maps", "r0_shared_size")


class ScaleRun:
    """samples {slug: {np: [{"seconds": s, key: value (kB or counts) for KEYS}, ...]}};
    failed {slug: {np: why}}; busy: loads seen before the runs; reps, timeout."""

    def __init__(self, slugs, reps, timeout):
        self.samples = {s: {np: [] for np in SCALE_NP} for s in slugs}
        self.failed = {s: {} for s in slugs}
        self.busy, self.reps, self.timeout = [], reps, timeout


def parse(out):
    """The values of scale_memory's line, or None."""
    m = re.search(r"^scale ranks=(\d+)((?: \w+=\d+)+)$", out, re.M)
    if not m:
        return None
    got = dict((k, int(v)) for k, v in re.findall(r"(\w+)=(\d+)", m.group(2)))
    got["ranks"] = int(m.group(1))
    return got if all(k in got for k in KEYS) else None


def command(mpi, np):
    return mpi.launcher + mpi.oversub_opts + ["-n", str(np), mpi.programs[PROGRAM]]


def measure_scale(mpis, args, idle):
    """A ScaleRun. The runner has built PROGRAM for mpis."""
    sr = ScaleRun([m.slug for m in mpis], args.scale_reps, args.scale_timeout)
    for np in SCALE_NP:
        for rep in range(args.scale_reps):
            for mpi in rotated(mpis, rep + np):
                if PROGRAM not in mpi.programs or sr.failed[mpi.slug]:
                    continue
                idle.before_run(sr.busy)
                status, out, err, seconds = run(command(mpi, np), args.scale_timeout)
                got = parse(out)
                if status != 0 or got is None or got.get("ranks", np) != np:
                    why = (f"np={np}: exit status {status}: {first_error_line(err + out)}"
                           if status != 0 else f"np={np}: no memory line in its output")
                    sr.failed[mpi.slug][np] = why
                    if mpi.slug == "metampi":
                        mpi.failed.setdefault(PROGRAM, why)
                else:
                    got["seconds"] = seconds
                    sr.samples[mpi.slug][np].append(got)
                print(f"    scale {mpi.name:8} np={np:3} rep {rep + 1}: {seconds:6.1f} s "
                      + (f"total {got['total'] / 1024:.0f} MB" if status == 0 and got else
                         "FAILED: " + sr.failed[mpi.slug].get(np, "?")), flush=True)
    return sr
