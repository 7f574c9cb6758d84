"""The collective rounds: in each, every collective with each rank count for every MPI, the
MPIs taking turns in an order rotated every round."""
import re
import time

from metabench.formatting import human_bytes
from metabench.process import first_error_line, run
from metabench.programs import COLLS
from metabench.results import P2pResult
from metabench.schedule import rotated

# Rank counts of the collective runs: 2 is one rank per core (pinned like point to point),
# 4 and 8 oversubscribe the 2 cores of the reference machine (no binding).
COLL_NP = (2, 4, 8)


class CollRun:
    """What the collective section measured: results[np][collective][mpi slug] (P2pResult),
    the load seen just before each run (busy), and how long it took (elapsed, s)."""

    def __init__(self, results):
        self.results = results
        self.busy = []
        self.elapsed = 0.0


def coll_sizes(coll, max_bytes):
    """The sizes coll_latency reports: 0 for barrier, else 4 B, 16 B, ... max_bytes."""
    if coll == "barrier":
        return [0]
    sizes, b = [], 4
    while b <= max_bytes:
        sizes.append(b)
        b *= 4
    return sizes


def parse_coll(out, coll):
    """{bytes: average latency in µs over the ranks} from coll_latency's lines for coll."""
    return {int(m.group(1)): float(m.group(2))
            for m in re.finditer(rf"^{coll} (\d+) \d+ ([\d.]+) [\d.]+ [\d.]+$", out, re.M)}


def coll_key(coll, np):
    """What a failed collective run is filed under in Mpi.failed."""
    return f"coll_{coll} -n {np}"


def measure_coll(mpis, args, idle):
    """CollRun; every round runs each collective with each rank count for every MPI, the MPIs
    taking turns as for point to point."""
    started = time.perf_counter()
    cr = CollRun({np: {c: {m.slug: P2pResult() for m in mpis} for c in COLLS} for np in COLL_NP})
    results = cr.results
    for rnd in range(args.coll_rounds):
        began = time.perf_counter()
        for np in COLL_NP:
            for coll in COLLS:
                for mpi in rotated(mpis, rnd):
                    r = results[np][coll][mpi.slug]
                    if "coll_" + coll in mpi.programs and r.failed_from is None:
                        run_coll_once(mpi, coll, np, r, args, idle, cr.busy)
        print(f"  collectives round {rnd + 1}/{args.coll_rounds} done "
              f"({time.perf_counter() - began:.0f} s)", flush=True)
    cr.elapsed = time.perf_counter() - started
    return cr


def run_coll_once(mpi, coll, np, result, args, idle, busy):
    sizes = coll_sizes(coll, args.coll_max_bytes)
    idle.before_run(busy)
    status, out, err, seconds = run(mpi.coll_command(coll, np, args.coll_max_bytes, args.scale),
                                    args.coll_timeout)
    values = parse_coll(out, coll)
    complete = status == 0 and all(b in values for b in sizes)
    result.add_run(values, complete, sizes)
    if not complete:
        mpi.failed[coll_key(coll, np)] = (
            f"failed from {human_bytes(result.failed_from)} on (exit status {status}): "
            f"{first_error_line(err + out)}")
    print(f"    {coll:9} -n {np} {mpi.name:8} {seconds:6.1f} s "
          f"{'ok' if complete else 'FAILED: ' + mpi.failed[coll_key(coll, np)]}", flush=True)
