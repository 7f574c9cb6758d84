"""One-sided communication between two emulated hosts: bench/rma/rma_latency.c (as on one
host: an operation + MPI_Win_flush inside MPI_Win_lock_all, 2 ranks) with one rank on each
host, for every MPI, in the TCP section's rounds; issue 17's target there (a put + flush
within 1.2× of a TCP round trip, raw_tcp's 1 B ping-pong) and the table of the report."""
from metabench.formatting import describe_slowdown, fmt, human_bytes
from metabench.limits import RAW
from metabench.process import first_error_line, run
from metabench.onesided import OP_TITLES, RmaResult, best_peer, keys, parse_rma

RMA_TCP_LIMIT = 1.2   # put + flush / raw TCP round trip, at most
LINK_BYTES_MIN = 1 << 20   # the largest put (1 MiB) at least must have crossed h1's eth0


def tcp_rma_once(tr, cluster, mpi, launch, args, idle):
    """One run of rma_latency across the two hosts; samples into tr.rma[mpi.slug]."""
    r = tr.rma.setdefault(mpi.slug, RmaResult())
    idle.before_run(tr.busy)
    before = cluster.counters()
    status, out, err, seconds = run(launch + [mpi.programs["rma_latency"], str(args.scale)],
                                    args.timeout)
    after = cluster.counters()
    tr.left_behind += cluster.sweep()
    crossed = before is None or after is None or after[0] - before[0] >= LINK_BYTES_MIN
    if not crossed:
        r.failed = (f"its traffic did not cross the link ({after[0] - before[0]} bytes on "
                    "h1's eth0); results discarded")
    elif status != 0:
        r.failed = f"exit status {status}: {first_error_line(err + out)}"
    if crossed:
        for key, v in parse_rma(out).items():
            r.samples.setdefault(key, []).append(v)
    print(f"    rma       {mpi.name:8} {seconds:6.1f} s "
          f"{'ok' if status == 0 and crossed else 'FAILED: ' + r.failed}", flush=True)


def round_trip(tr):
    """raw TCP's round trip at 1 B (µs), or None."""
    raw = tr.results["latency"].get(RAW)
    one_way = raw.median(1) if raw else None
    return None if one_way is None else 2 * one_way


def tcp_rma_target(tr, prefix):
    name = (f"{prefix}: one-sided put of 8 B + MPI_Win_flush within {RMA_TCP_LIMIT:.1f}× of a "
            "TCP round trip (raw TCP 1 B ping-pong), and every operation at or below the "
            "better peer")
    if tr.error:
        return (name, ("not evaluated", f"not measured: {tr.error}"))
    mine = tr.rma.get("metampi")
    rtt = round_trip(tr)
    put = mine.median(("put", 8)) if mine else None
    if put is None or rtt is None:
        return (name, ("not evaluated", "no metampi put result" if put is None
                       else "no raw TCP round trip"))
    worst_peer = max(((mine.median(k) / p, k) for k in keys(tr.rma)
                      if mine.median(k) is not None
                      and (p := best_peer(tr.rma, k)) is not None), default=None)
    ok = put / rtt <= RMA_TCP_LIMIT and (worst_peer is None or worst_peer[0] <= 1.0)
    details = f"put 8 B + flush {put:.1f} µs = {put / rtt:.2f}× the TCP round trip ({rtt:.1f} µs)"
    if worst_peer:
        details += (f"; worst against the better peer: {worst_peer[1][0]} "
                    f"{human_bytes(worst_peer[1][1])}, metampi "
                    f"{describe_slowdown(worst_peer[0])} the better peer")
    return (name, ("met" if ok else "not met", details))


def tcp_rma_table(tr, mpis):
    if not tr.rma:
        return []
    rtt = round_trip(tr)
    lines = ["### One-sided communication between two hosts", "",
             "`bench/rma/rma_latency.c` as on one host (an operation + `MPI_Win_flush` inside "
             "`MPI_Win_lock_all`), rank 0 on h1, rank 1 on h2 waiting in a barrier. µs per "
             "operation, median over the rounds, **lower is better**; the TCP round trip "
             f"(raw TCP 1 B ping-pong) is {fmt(rtt, 1)} µs.", "",
             "| operation | size | " + " | ".join(f"{m.name} (µs)" for m in mpis) +
             " | metampi / best peer | metampi / TCP round trip |",
             "|---|---:|" + "---:|" * len(mpis) + "---:|---:|"]
    for key in keys(tr.rma):
        cells = [fmt(tr.rma[m.slug].median(key), 1) if m.slug in tr.rma else "—" for m in mpis]
        mine, peer = tr.rma["metampi"].median(key), best_peer(tr.rma, key)
        ratio = "n/a" if mine is None or peer is None else f"{mine / peer:.2f}"
        vs_rtt = "n/a" if mine is None or not rtt else f"{mine / rtt:.2f}"
        lines.append(f"| {OP_TITLES[key[0]]} | {human_bytes(key[1])} | " + " | ".join(cells)
                     + f" | {ratio} | {vs_rtt} |")
    failed = [f"- {m.name}: {tr.rma[m.slug].failed}" for m in mpis
              if m.slug in tr.rma and tr.rma[m.slug].failed]
    return lines + [""] + failed + ([""] if failed else [])
