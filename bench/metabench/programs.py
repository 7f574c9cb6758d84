"""The benchmark programs (bench/p2p, bench/coll, bench/startup, ...): their sources, how each MPI's
wrapper builds them, the sizes they report, what they print and what they move."""
import os
import re

from metabench.paths import BENCH_DIR
from metabench.process import first_error_line, run

SOURCES = {"init_finalize": "startup/init_finalize.c",
           "latency": "p2p/latency.c",
           "bandwidth": "p2p/bandwidth.c",
           "msgrate": "p2p/msgrate.c",
           "noncontig": "p2p/noncontig.c",
           "rma_latency": "rma/rma_latency.c",
           "io_bandwidth": "io/io_bandwidth.c",
           "latency_mt": "threads/latency_mt.c",
           "msgrate_mt": "threads/msgrate_mt.c",
           "selfrate_mt": "threads/selfrate_mt.c",
           "overlap": "threads/overlap.c",
           "scale_memory": "startup/scale_memory.c",
           "wan_recovery": "wan/recovery.c"}
P2P = ("latency", "bandwidth")
# msgrate (osu_mbw_mr) runs with 1 and 2 pairs of ranks; its results are the programs
# "msgrate_1" and "msgrate_2" of the point-to-point part.
MSGRATE_PAIRS = (1, 2)
MSGRATE_MAX_BYTES = 64
# coll_latency is built once per collective (-DONLY_BCAST, ...), so that an MPI lacking one
# collective still has the others, and a collective that crashes or hangs costs only its own
# results. Program name: "coll_<collective>".
COLLS = ("barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall")
COLL_TITLES = {"barrier": "MPI_Barrier", "bcast": "MPI_Bcast", "reduce": "MPI_Reduce",
               "allreduce": "MPI_Allreduce", "allgather": "MPI_Allgather",
               "alltoall": "MPI_Alltoall"}
for _c in COLLS:
    SOURCES["coll_" + _c] = "coll/coll_latency.c"
FLAGS = {"coll_" + c: ["-DONLY_" + c.upper()] for c in COLLS}
MAX_BYTES = 4 << 20
COLL_MAX_BYTES = 1 << 20


def build_programs(mpis, work, names):
    for mpi in mpis:
        outdir = os.path.join(work, mpi.slug)
        os.makedirs(outdir, exist_ok=True)
        for name in names:
            exe = os.path.join(outdir, name)
            status, _, err, _ = run(mpi.cc + ["-O2"] + FLAGS.get(name, []) +
                                    [os.path.join(BENCH_DIR, SOURCES[name]), "-o", exe],
                                    timeout=120)
            if status == 0:
                mpi.programs[name] = exe
            else:
                mpi.unavailable[name] = f"does not build: {first_error_line(err)}"
            print(f"  build {mpi.name:8} {name:13}: "
                  f"{'ok' if status == 0 else 'NOT AVAILABLE (build failed)'}", flush=True)


def msgrate_program(pairs):
    return f"msgrate_{pairs}"


def msgrate_sizes():
    return [1 << k for k in range(MSGRATE_MAX_BYTES.bit_length())]


def expected_sizes(max_bytes):
    sizes, b = [0], 1
    while b <= max_bytes:
        sizes.append(b)
        b *= 2
    return sizes


def parse_p2p_with_counts(out, program):
    """{bytes: (iterations, value)}: latency in µs, bandwidth in MB/s (10^6 B)."""
    pat = (r"^(\d+) (\d+) ([\d.]+)$" if program == "latency" else
           r"^(\d+) (\d+) ([\d.]+) [\d.]+$")
    return {int(m.group(1)): (int(m.group(2)), float(m.group(3)))
            for m in re.finditer(pat, out, re.M)}


def payload(program, counts, window=64):
    """(bytes, messages) timed by a run: counts {bytes: iterations}. Ping-pong: every round
    trip is two messages, each at least a packet; stream: windows of `window` messages
    (which TCP may coalesce, so only the bytes are checked)."""
    if program == "latency":
        return (sum(2 * b * n for b, n in counts.items()),
                sum(2 * n for n in counts.values()))
    return sum(window * b * n for b, n in counts.items()), 0
