"""The point-to-point rounds: in each, latency, bandwidth, then the message rate with 1 and 2
pairs for every MPI, the MPIs taking turns in an order rotated every round."""
import re

from metabench.formatting import human_bytes
from metabench.process import first_error_line, run
from metabench.programs import (MSGRATE_PAIRS, P2P, expected_sizes, msgrate_program,
                                msgrate_sizes)
from metabench.results import P2pResult
from metabench.schedule import rotated


class P2pRun:
    """What the point-to-point section measured: results[program][mpi slug] (P2pResult) for
    latency, bandwidth and msgrate_<pairs>, and the load seen just before each of its runs and
    the non-contiguous ones (busy)."""

    def __init__(self, results):
        self.results = results
        self.busy = []


def parse_p2p(out):
    """{bytes: value}: latency in µs, or messages per second for the bandwidth program."""
    return {int(m.group(1)): float(m.group(2))
            for m in re.finditer(r"^(\d+) \d+ (?:\S+ )?([\d.]+)$", out, re.M)}


def measure_p2p(mpis, args, idle):
    """P2pRun; rounds interleave the MPIs, rotating who goes first."""
    sizes = expected_sizes(args.max_bytes)
    rates = [msgrate_program(n) for n in MSGRATE_PAIRS]
    p2p = P2pRun({p: {m.slug: P2pResult() for m in mpis} for p in list(P2P) + rates})
    results = p2p.results
    for rnd in range(args.rounds):
        for program in P2P:
            for mpi in rotated(mpis, rnd):
                if program in mpi.programs and program not in mpi.failed:
                    run_p2p_once(mpi, program, mpi.p2p_command(program, args.max_bytes,
                                                                args.scale),
                                 results[program][mpi.slug], sizes, args, idle, p2p.busy)
        for pairs, program in zip(MSGRATE_PAIRS, rates):
            for mpi in rotated(mpis, rnd):
                if "msgrate" in mpi.programs and program not in mpi.failed:
                    run_p2p_once(mpi, program, mpi.msgrate_command(pairs, args.scale),
                                 results[program][mpi.slug], msgrate_sizes(), args, idle,
                                 p2p.busy)
        print(f"  round {rnd + 1}/{args.rounds} done", flush=True)
    return p2p


def run_p2p_once(mpi, program, cmd, result, sizes, args, idle, busy):
    idle.before_run(busy)
    status, out, err, seconds = run(cmd, args.timeout)
    values = parse_p2p(out)
    complete = status == 0 and all(b in values for b in sizes)
    result.add_run(values, complete, sizes)
    if not complete:
        mpi.failed[program] = (f"failed from {human_bytes(result.failed_from)} on (exit status "
                               f"{status}): {first_error_line(err + out)}")
    print(f"    {program:10} {mpi.name:8} {seconds:6.1f} s "
          f"{'ok' if complete else 'FAILED: ' + mpi.failed[program]}", flush=True)
