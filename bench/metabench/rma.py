"""One-sided communication on one host (bench/rma/rma_latency.c): put, get, accumulate,
fetch_and_op and compare_and_swap, each followed by MPI_Win_flush inside a lock_all epoch
(OSU's osu_put_latency -s lock_all method), 2 ranks, a window from MPI_Win_allocate; the
rounds, issue 17's targets on one host, the section of the report and its plot."""
from metabench.formatting import describe_slowdown, fmt, human_bytes
from metabench.onesided import (BANDWIDTH_FROM, OP_TITLES, RmaResult, best_peer, floor, keys,
                                 parse_rma)
from metabench.plots import STYLES, finish
from metabench.process import first_error_line, run
from metabench.schedule import rotated


def measure_rma(mpis, args, idle, busy):
    """{mpi slug: RmaResult}; the MPIs take turns within every round."""
    results = {m.slug: RmaResult() for m in mpis}
    for rnd in range(args.rounds):
        for mpi in rotated(mpis, rnd):
            r = results[mpi.slug]
            if "rma_latency" not in mpi.programs:
                continue
            idle.before_run(busy)
            cmd = mpi.launcher + mpi.bind_opts + ["-n", "2", mpi.programs["rma_latency"],
                                                  str(args.scale)]
            status, out, err, seconds = run(cmd, args.timeout)
            for key, v in parse_rma(out).items():
                r.samples.setdefault(key, []).append(v)
            if status != 0:
                r.failed = f"exit status {status}: {first_error_line(err + out)}"
                mpi.failed.setdefault("rma_latency", r.failed)
            print(f"    rma {mpi.name:8} {seconds:6.1f} s "
                  f"{'ok' if status == 0 else 'FAILED: ' + r.failed}", flush=True)
        print(f"  rma round {rnd + 1}/{args.rounds} done", flush=True)
    return results


FLOOR_SLACK = 1.03   # a put/get this close to a plain memcpy of its bytes is at the floor


def rma_targets(rma):
    """Issue 17 on one host: latency at or below the better peer's, bandwidth at or above
    (or, for put and get, at the memcpy floor: no MPI can copy faster than memcpy)."""
    lat, bw, missing = [], [], False
    for key in keys(rma):
        mine, peer = rma["metampi"].median(key), best_peer(rma, key)
        if mine is None:
            missing = True
            continue
        if peer is None:
            continue
        what = f"{key[0]} {human_bytes(key[1])}"
        if key[1] < BANDWIDTH_FROM:
            lat.append((mine / peer, what, False))
            continue
        copy = floor(rma, key[1]) if key[0] in ("put", "get") else None
        at_floor = copy is not None and mine <= FLOOR_SLACK * copy
        if at_floor:
            what += f" (at the memcpy floor: {mine:.3f} against {copy:.3f} µs)"
        bw.append((mine / peer, what, at_floor))

    def verdict(values):
        if not values:
            return ("not evaluated", "no results")
        worst = max(values)
        met = all(r <= 1.0 or at_floor for r, _, at_floor in values) and not missing
        return ("met" if met else "not met",
                f"{worst[1]}: metampi {describe_slowdown(worst[0])} the better peer"
                + ("; metampi results missing" if missing else ""))

    return [("One-sided on one host: put/get/accumulate/fetch_and_op/compare_and_swap "
             "latency (+ flush) at or below the better peer", verdict(lat)),
            (f"One-sided on one host: put/get/accumulate of ≥ {human_bytes(BANDWIDTH_FROM)} "
             "at or above the better peer's bandwidth (put/get: or within "
             f"{round((FLOOR_SLACK - 1) * 100)} % of a plain memcpy of the same bytes)",
             verdict(bw))]


def rma_section(rma, mpis):
    lines = ["## One-sided communication (one host)", "",
             "`bench/rma/rma_latency.c`, OSU `osu_*_latency -s lock_all` method: rank 0 "
             "issues one operation to rank 1 and `MPI_Win_flush`es it, inside one "
             "`MPI_Win_lock_all` epoch, on a window from `MPI_Win_allocate`; rank 1 waits in "
             "a barrier meanwhile. Microseconds per operation (median over the rounds); "
             "accumulates on `long`s with `MPI_SUM`.", "",
             "**Lower is better. Ratio = metampi / better peer: below 1 means metampi is "
             "faster.**", "",
             "| operation | size | " + " | ".join(f"{m.name} (µs)" for m in mpis) +
             " | metampi / best peer |",
             "|---|---:|" + "---:|" * len(mpis) + "---:|"]
    for key in keys(rma):
        cells = [fmt(rma[m.slug].median(key), 3) if m.slug in rma else "—" for m in mpis]
        mine, peer = rma["metampi"].median(key), best_peer(rma, key)
        ratio = "n/a" if mine is None or peer is None else f"{mine / peer:.2f}"
        lines.append(f"| {OP_TITLES[key[0]]} | {human_bytes(key[1])} | " + " | ".join(cells)
                     + f" | {ratio} |")
    floors = sorted({k[1] for k in keys(rma) if floor(rma, k[1]) is not None})
    if floors:
        lines += ["", "The floor: a plain `memcpy` of the same bytes into the origin's own window "
                  "memory, in metampi's runs: " + ", ".join(
                      f"{human_bytes(b)} {fmt(floor(rma, b), 3)} µs" for b in floors) + "."]
    failed = [f"{m.name}: {rma[m.slug].failed}" for m in mpis
              if m.slug in rma and rma[m.slug].failed]
    return lines + [""] + [f"- {f}" for f in failed] + \
        ["", "![one-sided latency](perf/rma.png)", ""]


def plot_rma(plt, rma, mpis, path):
    """Grouped bars: µs per operation (log scale), one group per operation and size."""
    ks = keys(rma)
    fig, ax = plt.subplots(figsize=(12, 5))
    width = 0.8 / max(len(mpis), 1)
    for i, m in enumerate(mpis):
        color, _ = STYLES[m.slug]
        vals = [rma[m.slug].median(k) or 0 for k in ks]
        ax.bar([x + i * width for x in range(len(ks))], vals, width, color=color, label=m.name)
    ax.set_xticks([x + width * (len(mpis) - 1) / 2 for x in range(len(ks))])
    ax.set_xticklabels([f"{k[0]}\n{human_bytes(k[1])}" for k in ks])
    ax.set_yscale("log")
    ax.set(ylabel="µs per operation + flush, median", title="One-sided, one host, 2 ranks")
    finish(plt, fig, ax, path)
