"""The hetero family's report, from a measure.HeteroRun as data: its target (issue 19: like
peers within 2 %) and its section of docs/performance.md."""
import statistics

from metabench.formatting import human_bytes
from metabench.hetero.measure import CONTROL, NOHETERO, ONE_HOST_RUNS, SIZES, SMALL, WHERE

PREFIX = "Heterogeneity"
LIKE_COST_LIMIT = 1.02   # 0-8 B latency between like peers, support built in / out


def values(hr, slug, key):
    return hr.samples.get(slug, {}).get(key) or []


def median(hr, slug, key):
    v = values(hr, slug, key)
    return statistics.median(v) if v else None


def best(hr, slug, key):
    v = values(hr, slug, key)
    return min(v) if v else None


def cell(value, digits):
    return "—" if value is None else f"{value:.{digits}f}"


def ratio(a, b):
    return None if a is None or not b else a / b


def like_cost(hr):
    """The worst ratio over 0-8 B on one host and between two hosts of the latency with
    heterogeneity support built in to without (best round of each, as the threads family
    does: 2 % is far below what a busy machine does to a median of a few rounds), and where;
    None if either build has no result."""
    pairs = [(ratio(best(hr, "metampi", (w, b)), best(hr, NOHETERO, (w, b))), w, b)
             for w in WHERE for b in SMALL]
    pairs = [p for p in pairs if p[0] is not None]
    return max(pairs) if pairs else None


def control_spread(hr):
    """The worst difference over 0-8 B between the build without and its control (the same
    binaries, best rounds), as a factor ≥ 1 (max(r, 1/r)), and where: what this method
    reports when there is no difference; None without a control."""
    pairs = [(ratio(best(hr, CONTROL, (w, b)), best(hr, NOHETERO, (w, b))), w, b)
             for w in WHERE for b in SMALL]
    pairs = [(max(r, 1 / r), w, b) for r, w, b in pairs if r]
    return max(pairs) if pairs else None


def targets(hr):
    name = (f"{PREFIX}: 0–8 B latency between like peers with heterogeneity support built in "
            f"within {LIKE_COST_LIMIT:.2f}× of the build without (best round)")
    if hr is None:
        return [(name, ("not evaluated", "not measured"))]
    c = like_cost(hr)
    if not c:
        return [(name, ("not evaluated", "no result"))]
    detail = f"{c[1]}, {human_bytes(c[2])}: {c[0]:.3f}×"
    k = control_spread(hr)
    if k:
        detail += (f"; the build without against itself (control): {k[0]:.3f}× "
                   f"({k[1]}, {human_bytes(k[2])})")
    if c[0] <= LIKE_COST_LIMIT:
        verdict = "met"
    elif k and c[0] <= k[0]:   # identical binaries differ as much: this run cannot tell
        verdict = "not resolved (within the control's spread)"
    else:
        verdict = "not met"
    return [(name, (verdict, detail))]


def section(hr):
    head = ["## What heterogeneity support costs like peers", ""]
    if hr is None:
        return head + ["Not measured in this run.", ""]
    load = (f" Load seen before the runs: median {statistics.median(hr.busy):.0%}, worst "
            f"{max(hr.busy):.0%} of the CPUs." if hr.busy else "")
    lines = head + [
        "`p2p/latency.c` between 2 ranks of one architecture with metampi as built (every "
        "receive asks `peer_arch_all_same()`, one load and a predictable branch) and with a "
        "second build of the same commit with `-DMETAMPI_HETERO=OFF` (the test is the constant "
        "1: the conversion branches compile away, as before issue 19), interleaved in every "
        f"round ({hr.rounds} rounds; on one host, where a run takes a fraction of a second, "
        f"{ONE_HOST_RUNS} runs of each build per round, the builds taking turns); on one host "
        "(shared memory) and between two emulated hosts "
        f"(`tests/cluster/run_on_hosts.sh 1,1`, TCP). {human_bytes(SIZES[-2])} is eager and "
        f"{human_bytes(SIZES[-1])} rendezvous on both. µs one way, median and best of all runs; "
        "ratios built in / built out. The control is the build without measured a second "
        "time in the same rounds (the same binaries): its ratio to the build without is what "
        "this method shows for no difference at all, so a ratio of built in / built out "
        "within the control's spread is not a measured cost." + load, "",
        "| where | size | built in | built out | in / out | built in, best | built out, best "
        "| in / out, best | control / out, best |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for w in WHERE:
        for b in SIZES:
            key = (w, b)
            on, off = median(hr, "metampi", key), median(hr, NOHETERO, key)
            on_b, off_b = best(hr, "metampi", key), best(hr, NOHETERO, key)
            ctl_b = best(hr, CONTROL, key)
            if on is None and off is None:
                continue
            lines.append(f"| {w} | {human_bytes(b)} | {cell(on, 3)} | {cell(off, 3)} | "
                         f"{cell(ratio(on, off), 3)} | {cell(on_b, 3)} | {cell(off_b, 3)} | "
                         f"{cell(ratio(on_b, off_b), 3)} | {cell(ratio(ctl_b, off_b), 3)} |")
    failed = [f"- {name}: {why}" for name, why in sorted(hr.failed.items())]
    return lines + [""] + failed + ([""] if failed else [])
