"""The threads family's rounds: each MPI runs latency_mt, msgrate_mt and selfrate_mt at 1, 2,
4 threads and overlap with its progress thread off and on (where it has one), in turns rotated every
round; metampi also runs overlap between two emulated hosts and two emulated sites, and the
single-threaded latency with a second build of itself without thread support."""
import os
import re

from metabench.mpis import Mpi
from metabench.paths import BENCH_DIR
from metabench.process import first_error_line, run
from metabench.programs import build_programs
from metabench.schedule import rotated
from metabench.variant import build_variant

THREADS = (1, 2, 4)
OVERLAP_OPS = ("isend", "iallreduce")
OVERLAP_BYTES = 1 << 20
WHERE = ("one host", "two hosts", "two sites")
NOTHREADS = "metampi-nothreads"   # the slug of metampi built with -DMETAMPI_THREADS=OFF
# How each MPI turns its progress thread on (None: it has none), and the thread level its
# progress thread needs.
ASYNC_ENV = {"metampi": "METAMPI_ASYNC_PROGRESS=1", "openmpi": None,
             "mpich": "MPIR_CVAR_ASYNC_PROGRESS=1"}
ASYNC_LEVEL = {"metampi": "single", "mpich": "multiple"}
# ... and off (metampi's default, auto, runs it across sites).
ASYNC_OFF_ENV = {"metampi": "METAMPI_ASYNC_PROGRESS=0"}
PROGRAMS = ("latency_mt", "msgrate_mt", "selfrate_mt", "overlap", "latency")
SINGLE_PAIRS = 5   # alternations of the builds with and without thread support per round
SOURCE_DIR = os.path.dirname(BENCH_DIR)
# Between emulated hosts and sites (metampi only): tests/cluster's script and its arguments
# before mpirun; "{wanemu}" is the build's WAN emulator.
RUN_ON = {"two hosts": ("run_on_hosts.sh", ["1,1"]),
          "two sites": ("run_on_sites.sh", ["--wanemu", "{wanemu}", "--wan-mode", "gateways",
                                            "1/1"])}


class ThreadsRun:
    """samples {slug: {key: [value per round]}}, keys: ("latency", threads, bytes) µs;
    ("rate", threads) messages/s; ("selfrate", threads) messages/s of one rank to itself;
    ("overlap", where, op, "off"|"on") % hidden and
    ("transfer", where, op, mode) µs; ("single", bytes) µs of the single-threaded latency
    (slugs metampi and NOTHREADS). failed {"slug program": why}; busy: loads seen."""

    def __init__(self):
        self.samples, self.failed, self.busy = {}, {}, []

    def add(self, slug, key, value):
        self.samples.setdefault(slug, {}).setdefault(key, []).append(value)


def parse(out, program):
    rows = [l.split() for l in out.splitlines() if re.match(r"^[\w.]+( [\d.]+)+$", l)]
    if program == "latency_mt":
        return {("latency", int(r[0]), int(r[1])): float(r[3]) for r in rows if len(r) == 4}
    if program == "msgrate_mt":
        return {("rate", int(r[0])): float(r[3]) for r in rows if len(r) == 4}
    if program == "selfrate_mt":
        return {("selfrate", int(r[0])): float(r[3]) for r in rows if len(r) == 4}
    if program == "latency":
        return {("single", int(r[0])): float(r[2]) for r in rows if len(r) == 3}
    return {r[0]: (float(r[3]), float(r[6])) for r in rows if len(r) == 7}


def one_run(tr, mpi, program, cmd, keyed, args, timeout):
    """Runs cmd, adds its values (keyed(parsed) -> {key: value}); a failure is kept per
    program and the program is not run again. A failure on one host is also the MPI's (the
    runner's exit status), not one between emulated hosts or sites."""
    slug = mpi.slug
    name = f"{slug} {program}"
    if name in tr.failed:
        return
    status, out, err, seconds = run(cmd, timeout)
    for key, value in keyed(parse(out, program.split()[0])).items():
        tr.add(slug, key, value)
    if status != 0:
        tr.failed[name] = f"exit status {status}: {first_error_line(err + out)}"
        if "two " not in program:
            mpi.failed.setdefault(program, tr.failed[name])
    print(f"    threads {name:32} {seconds:6.1f} s "
          f"{'ok' if status == 0 else 'FAILED: ' + tr.failed[name]}", flush=True)


def overlap_runs(tr, mpi, args, where, launch):
    """overlap (both operations) with the progress thread off and on (if mpi has one)."""
    off = ASYNC_OFF_ENV.get(mpi.slug)
    modes = [("off", ["env", off] if off else [], "single")]
    if ASYNC_ENV.get(mpi.slug):
        modes.append(("on", ["env", ASYNC_ENV[mpi.slug]], ASYNC_LEVEL[mpi.slug]))
    for mode, env, level in modes:
        for op in OVERLAP_OPS:
            cmd = env + launch + [mpi.programs["overlap"], op, str(OVERLAP_BYTES), level,
                                  str(args.scale)]

            def keyed(got, op=op, mode=mode):
                if op not in got:
                    return {}
                transfer, hidden = got[op]
                return {("overlap", where, op, mode): hidden,
                        ("transfer", where, op, mode): transfer}
            one_run(tr, mpi, f"overlap {where} {op} {mode}", cmd, keyed, args,
                    args.timeout)


def single_runs(tr, single, rnd, args, idle, busy):
    """The single-threaded 0-8 B latency, with thread support built in and out: SINGLE_PAIRS
    alternations per round (who starts rotates with the round), each a whole run of
    p2p/latency.c. The cost looked for (a few ns of ~0.1 µs) is below what one run on a busy
    host varies by, so the report takes the best of many runs of each build and the median of
    the ratios of adjacent runs (a slow phase of the host hits both runs of a pair)."""
    for _ in range(SINGLE_PAIRS):
        for mpi in rotated(single, rnd):
            if "latency" in mpi.programs:
                idle.before_run(busy)
                one_run(tr, mpi, "latency 0-8 B",
                        mpi.launcher + mpi.bind_opts + ["-n", "2", mpi.programs["latency"],
                                                        "8", str(args.scale)],
                        lambda got: got, args, args.timeout)


def measure_threads(mpis, args, idle, busy):
    """A ThreadsRun; the MPIs (and metampi without thread support) take turns every round.
    The runner has built PROGRAMS for mpis."""
    tr = ThreadsRun()
    nothreads, why = build_variant(SOURCE_DIR, args.build_dir, "nothreads", "METAMPI_THREADS=OFF",
                                   1800)
    single = [m for m in mpis if m.slug == "metampi"]
    if nothreads:
        off = Mpi("metampi (no threads)", NOTHREADS, [os.path.join(nothreads, "bin", "mpicc")],
                  [os.path.join(nothreads, "bin", "mpirun")], [], single[0].bind_opts
                  if single else [], [])
        build_programs([off], args.work, ["latency"])
        single.append(off)
    else:
        tr.failed[f"{NOTHREADS} build"] = why
    scripts = os.path.join(SOURCE_DIR, "tests", "cluster")
    for rnd in range(args.rounds):
        for mpi in rotated(mpis, rnd):
            launch = mpi.launcher + mpi.bind_opts + ["-n", "2"]
            for t in THREADS:
                for program in ("latency_mt", "msgrate_mt"):
                    if program in mpi.programs:
                        idle.before_run(busy)
                        one_run(tr, mpi, f"{program} {t}",
                                launch + [mpi.programs[program], str(t), str(args.scale)],
                                lambda got: got, args, args.timeout)
                if "selfrate_mt" in mpi.programs:   # one rank, unbound: a core per thread
                    idle.before_run(busy)
                    one_run(tr, mpi, f"selfrate_mt {t}",
                            mpi.launcher + mpi.oversub_opts +
                            ["-n", "1", mpi.programs["selfrate_mt"], str(t), str(args.scale)],
                            lambda got: got, args, args.timeout)
            if "overlap" in mpi.programs:
                idle.before_run(busy)
                overlap_runs(tr, mpi, args, "one host", launch)
                if mpi.slug == "metampi" and os.geteuid() == 0:
                    wanemu = os.path.join(args.build_dir, "tests", "bin", "wanemu")
                    for where, (script, layout) in RUN_ON.items():
                        overlap_runs(tr, mpi, args, where,
                                     ["bash", os.path.join(scripts, script)] +
                                     [a.format(wanemu=wanemu) for a in layout] +
                                     [mpi.launcher[0]])
        single_runs(tr, single, rnd, args, idle, busy)
        print(f"  threads round {rnd + 1}/{args.rounds} done", flush=True)
    tr.busy = busy
    return tr
