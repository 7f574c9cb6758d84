"""The runner's command line (bench/README.md lists it)."""
import argparse

from metabench.programs import COLL_MAX_BYTES, MAX_BYTES

DESCRIPTION = "metampi benchmarks against Open MPI and MPICH, measured in the same run."


def parse_args():
    ap = argparse.ArgumentParser(description=DESCRIPTION)
    ap.add_argument("--build", help="metampi build tree (bin/mpicc, bin/mpirun)")
    ap.add_argument("--docs", help="where performance.md and perf/ go")
    ap.add_argument("--work", help="scratch dir for the benchmark binaries and the raw results")
    ap.add_argument("--rounds", type=int, default=5, help="point-to-point rounds (default 5)")
    ap.add_argument("--startup-reps", type=int, default=10, help="startup runs per N (10)")
    ap.add_argument("--scale", type=float, default=1.0,
                    help="multiply every iteration count by this, in (0, 1] (default 1)")
    ap.add_argument("--max-bytes", type=int, default=MAX_BYTES, help="largest message (4 MiB)")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per run (default 120)")
    ap.add_argument("--wait-idle", type=int, default=60,
                    help="before each point-to-point run, wait for other work on the machine to "
                         "drop below 10%% of the CPUs, up to this many seconds over the whole "
                         "run (default 60)")
    ap.add_argument("--coll-rounds", type=int, default=5,
                    help="collective rounds, MPIs interleaved in each (default 5)")
    ap.add_argument("--coll-max-bytes", type=int, default=COLL_MAX_BYTES,
                    help="largest collective size (1 MiB)")
    ap.add_argument("--coll-timeout", type=int, default=60,
                    help="seconds per collective run (default 60)")
    ap.add_argument("--wan-rounds", type=int, default=3,
                    help="rounds between two emulated sites, contenders interleaved in each "
                         "(default 3; 1 with --quick)")
    ap.add_argument("--wan-timeout", type=int, default=60,
                    help="seconds per run between two sites (default 60)")
    ap.add_argument("--scale-reps", type=int, default=3,
                    help="runs per MPI and rank count of the scale family (default 3; 1 with "
                         "--quick)")
    ap.add_argument("--scale-timeout", type=int, default=300,
                    help="seconds per run of the scale family (default 300)")
    ap.add_argument("--only", choices=["p2p", "coll", "tcp", "wan", "rma", "io", "threads",
                                       "hetero", "scale", "noncontig"],
                    help="p2p: only latency, bandwidth and message rate on one host; "
                         "coll: only the collectives; rma: only one-sided communication; "
                         "noncontig: only the non-contiguous transfers (strided vectors, "
                         "3-D faces); "
                         "threads: only the threads family (bench/threads; its parts between "
                         "emulated hosts and sites need root); "
                         "hetero: only what heterogeneity support costs like peers (a "
                         "second build with -DMETAMPI_HETERO=OFF; between emulated hosts as "
                         "root); "
                         "io: only collective I/O; "
                         "scale: only startup and memory at 16-256 ranks on one host; "
                         "tcp: only the benchmarks between two "
                         "emulated hosts; wan: only those between two emulated sites (tcp and "
                         "wan need root); replaces that part of performance.md (and its rows "
                         "in the targets table), keeps the rest")
    ap.add_argument("--quick", action="store_true",
                    help="development: 2 rounds, 2 startup runs, iterations x 0.05")
    ap.add_argument("--from-results", metavar="FILE",
                    help="measure nothing: write the report and plots (into --docs) from the "
                         "raw results an earlier run saved (<work>/results*.json), as that run "
                         "did; the other options are ignored")
    args = ap.parse_args()
    # --docs always, --build and --work unless --from-results; named together, as argparse
    # names the required options it misses
    missing = [o for o, v in (("--build", args.build), ("--docs", args.docs),
                              ("--work", args.work))
               if v is None and (o == "--docs" or not args.from_results)]
    if missing:
        ap.error("the following arguments are required: " + ", ".join(missing))
    if args.quick:
        args.rounds, args.startup_reps, args.scale, args.wait_idle = 2, 2, 0.05, 0
        args.coll_rounds, args.wan_rounds, args.scale_reps = 2, 1, 1
    if (not 0 < args.scale <= 1 or args.rounds < 1 or args.startup_reps < 1 or
            args.coll_rounds < 1 or args.coll_max_bytes < 4 or args.wan_rounds < 1 or
            args.wan_timeout < 1 or args.scale_reps < 1 or args.scale_timeout < 1):
        ap.error("need 0 < --scale <= 1, --rounds >= 1, --startup-reps >= 1, "
                 "--coll-rounds >= 1, --coll-max-bytes >= 4, --wan-rounds >= 1, "
                 "--wan-timeout >= 1, --scale-reps >= 1, --scale-timeout >= 1")
    return args
