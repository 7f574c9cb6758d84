"""What the one-sided benchmark (bench/rma/rma_latency.c) prints and how its results are
kept and compared, for the section on one host (rma.py) and between two hosts (tcp/rma.py)."""
import re

from metabench.results import median_or_none

OPS = ("put", "get", "acc", "fop", "cas")
FLOOR = "copy"   # a plain memcpy of a put's bytes in the origin's process: the floor on one host
OP_TITLES = {"put": "MPI_Put", "get": "MPI_Get", "acc": "MPI_Accumulate (MPI_SUM, long)",
             "fop": "MPI_Fetch_and_op (MPI_SUM, long)",
             "cas": "MPI_Compare_and_swap (long)"}
BANDWIDTH_FROM = 65536   # from here on the target is bandwidth, not latency


def parse_rma(out):
    """{(op, bytes): µs per operation} from rma_latency's output."""
    return {(m.group(1), int(m.group(2))): float(m.group(3))
            for m in re.finditer(r"^(put|get|acc|fop|cas|copy) (\d+) ([\d.]+)$", out, re.M)}


class RmaResult:
    """Per MPI: samples per (op, bytes) over the rounds, and why a run failed (the samples it
    printed before failing still count)."""

    def __init__(self):
        self.samples = {}
        self.failed = None

    def median(self, key):
        return median_or_none(self.samples.get(key, []))


def keys(rma):
    """The operations measured (not the copy floor), in OPS order."""
    found = set()
    for r in rma.values():
        found |= {k for k in r.samples if k[0] in OPS}
    return sorted(found, key=lambda k: (OPS.index(k[0]), k[1]))


def floor(rma, nbytes):
    """metampi's memcpy of nbytes in the same run (µs), or None."""
    return rma["metampi"].median((FLOOR, nbytes)) if "metampi" in rma else None


def best_peer(rma, key, lower_is_better=True):
    peers = [rma[p].median(key) for p in ("openmpi", "mpich") if p in rma]
    peers = [v for v in peers if v is not None]
    if not peers:
        return None
    return min(peers) if lower_is_better else max(peers)
