"""The hetero family's rounds: p2p latency (0 B .. RNDV_BYTES) with metampi as built and
without heterogeneity support, and the build without once more as a control (the same
binaries measured twice: what the method reports for no difference at all), taking turns in an
order rotated every round, on one host and (as root) between two emulated hosts."""
import copy
import os
import re

from metabench.mpis import Mpi
from metabench.paths import BENCH_DIR
from metabench.process import first_error_line, run
from metabench.programs import build_programs
from metabench.schedule import rotated
from metabench.variant import build_variant

NOHETERO = "metampi-nohetero"   # the slug of metampi built with -DMETAMPI_HETERO=OFF
CONTROL = "metampi-nohetero-control"   # the same build, measured again as its own control
SMALL = (0, 1, 2, 4, 8)
EAGER_BYTES = 4096              # eager on every transport (shm 8 KiB, TCP 32 KiB)
RNDV_BYTES = 65536              # rendezvous on every transport
SIZES = SMALL + (EAGER_BYTES, RNDV_BYTES)
WHERE = ("one host", "two hosts")
# latency.c's runs on one host take a fraction of a second (10000 round trips of ~0.1 µs per
# size), shorter than this machine's swings: every round runs each build this many times
# there, the builds taking turns, so a best round is the best of rounds x this many runs.
ONE_HOST_RUNS = 10
SOURCE_DIR = os.path.dirname(BENCH_DIR)


class HeteroRun:
    """samples {slug: {(where, bytes): [µs per round]}} (slugs metampi, NOHETERO, CONTROL);
    failed {"slug where": why}; busy: loads seen."""

    rounds = 0   # a class default: results saved before it existed restore without it

    def __init__(self):
        self.samples, self.failed, self.busy = {}, {}, []

    def add(self, slug, key, value):
        self.samples.setdefault(slug, {}).setdefault(key, []).append(value)


def parse(out):
    """{bytes: µs} of latency.c's lines "<bytes> <iterations> <µs>"."""
    rows = [l.split() for l in out.splitlines() if re.match(r"^\d+ \d+ [\d.]+$", l)]
    return {int(r[0]): float(r[2]) for r in rows}


def one_run(hr, slug, where, cmd, timeout):
    name = f"{slug} {where}"
    if name in hr.failed:
        return
    status, out, err, seconds = run(cmd, timeout)
    for b, us in parse(out).items():
        if b in SIZES:
            hr.add(slug, (where, b), us)
    if status != 0:
        hr.failed[name] = f"exit status {status}: {first_error_line(err + out)}"
    print(f"    hetero {name:28} {seconds:6.1f} s "
          f"{'ok' if status == 0 else 'FAILED: ' + hr.failed[name]}", flush=True)


def measure_hetero(mpis, args, idle, busy):
    """A HeteroRun; metampi, metampi without heterogeneity support and its control take
    turns every round. The runner has built "latency" for mpis."""
    hr = HeteroRun()
    builds = [m for m in mpis if m.slug == "metampi" and "latency" in m.programs]
    if not builds:
        hr.failed["metampi"] = "no latency program"
        return hr
    nohetero, why = build_variant(SOURCE_DIR, args.build_dir, "nohetero", "METAMPI_HETERO=OFF",
                                  1800)
    if nohetero:
        off = Mpi("metampi (no hetero)", NOHETERO, [os.path.join(nohetero, "bin", "mpicc")],
                  [os.path.join(nohetero, "bin", "mpirun")], [], builds[0].bind_opts, [])
        build_programs([off], args.work, ["latency"])
        if "latency" in off.programs:
            control = copy.copy(off)
            control.name, control.slug = "metampi (no hetero, control)", CONTROL
            builds += [off, control]
        else:
            hr.failed[f"{NOHETERO} build"] = off.unavailable.get("latency", "latency")
    else:
        hr.failed[f"{NOHETERO} build"] = why
    hosts = os.path.join(SOURCE_DIR, "tests", "cluster", "run_on_hosts.sh")
    hr.rounds = args.rounds
    for rnd in range(args.rounds):
        for run_no in range(ONE_HOST_RUNS):
            for mpi in rotated(builds, rnd + run_no):
                prog = [mpi.programs["latency"], str(RNDV_BYTES), str(args.scale)]
                idle.before_run(busy)
                one_run(hr, mpi.slug, "one host",
                        mpi.launcher + mpi.bind_opts + ["-n", "2"] + prog, args.timeout)
        for mpi in rotated(builds, rnd):
            prog = [mpi.programs["latency"], str(RNDV_BYTES), str(args.scale)]
            if os.geteuid() == 0:
                idle.before_run(busy)
                one_run(hr, mpi.slug, "two hosts",
                        ["bash", hosts, "1,1", mpi.launcher[0]] + prog, args.timeout)
        print(f"  hetero round {rnd + 1}/{args.rounds} done", flush=True)
    hr.busy = busy
    return hr
