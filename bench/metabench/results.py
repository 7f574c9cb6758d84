"""What a run leaves: the samples per size of a program for one contender (P2pResult), the
check that its traffic crossed the link (LinkCheck), and their statistics. The measuring
modules fill them; the reports read them as data."""
import statistics

from metabench.formatting import human_bytes_si


def median_or_none(values):
    return statistics.median(values) if values else None


class P2pResult:
    """Per program (or collective and rank count) and MPI: the samples per size, and since
    which size it failed (if it did)."""

    def __init__(self):
        self.samples = {}      # bytes -> [value per round]
        self.failed_from = None

    def add_run(self, values, complete, sizes):
        for b, v in values.items():
            self.samples.setdefault(b, []).append(v)
        if not complete:
            self.failed_from = next((b for b in sizes if b not in values), sizes[-1])

    def median(self, b):
        if self.failed_from is not None and b >= self.failed_from:
            return None
        return median_or_none(self.samples.get(b, []))


class LinkCheck:
    """Per contender and program: what crossed h1's eth0 in each run against what the program
    timed (a lower bound of what it must have moved)."""

    def __init__(self):
        self.runs = []    # (link bytes, payload bytes, link packets, messages or 0)

    def add(self, link, pay, packets, messages):
        """Records a run; whether it crossed the link."""
        self.runs.append((link, pay, packets, messages))
        return link >= pay and packets >= messages

    def describe(self):
        if not self.runs:
            return "no run checked"
        ok = sum(1 for l, p, k, m in self.runs if l >= p and k >= m)
        parts = [f"{ok} of {len(self.runs)} runs passed"]
        shares = [l / p for l, p, _, _ in self.runs if p]
        if shares:
            parts.append(f"link / payload ≥ {min(shares):.2f}")
        shares = [k / m for _, _, k, m in self.runs if m]
        if shares:
            parts.append(f"packets / messages ≥ {min(shares):.2f}")
        parts.append(f"up to {human_bytes_si(max(l for l, _, _, _ in self.runs))} per run")
        return "; ".join(parts)


def best_peer(values, higher_is_better):
    """The better of Open MPI and MPICH (None if neither has a value)."""
    peers = [v for v in (values.get("openmpi"), values.get("mpich")) if v is not None]
    if not peers:
        return None
    return max(peers) if higher_is_better else min(peers)
