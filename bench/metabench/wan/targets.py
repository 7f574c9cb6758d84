"""The WAN section's statistics (medians, the best round, the demo's split per step), what the
emulated link allows (its floor per collective call) and the targets, from a
measure.WanRun."""
import statistics

from metabench.document import WAN
from metabench.formatting import describe_slowdown, human_bytes
from metabench.programs import expected_sizes
from metabench.wan import cluster as wc
from metabench.wan import measure as wm
from metabench.wan import recovery as wrec

LAT_LIMIT = 1.10            # metampi 0-8 B latency / raw TCP, at most
LAT_SMALL = 8
PLAIN_LIMIT = 1.05          # encrypted / plaintext gateways' latency 0-8 B, at most
BW_SHARE = 0.90             # metampi bandwidth / iperf3, at least
BW_FROM = 512 << 10         # ... for these sizes and up
COLL_SMALL = 1 << 10        # "small" collectives: up to this (and the barrier)
COLL_LARGE = 64 << 10       # "large": from this
COLL_SMALL_SPEEDUP = 2.0    # better peer / metampi, at least
COLL_LARGE_SPEEDUP = 1.5
FLOOR_LIMIT = 1.15          # issue 23, target 4: metampi / the WAN floor, at most
MPI_SLUGS = ("metampi", "metampi-direct", "openmpi", "mpich")
PEERS = ("openmpi", "mpich")


def value(wr, program, slug, b):
    r = wr.results[program].get(slug)
    return None if r is None else r.median(b)


def best_value(wr, program, slug, b):
    """The best round's value (latency: the lowest), or None."""
    r = wr.results[program].get(slug)
    if r is None or r.median(b) is None:
        return None
    samples = r.samples.get(b, [])
    return (min(samples) if program != "bandwidth" else max(samples)) if samples else None


def demo_summary(wr, config):
    """Medians over the runs of each part (ms per step), or None."""
    runs = wr.demo[config]
    if not runs:
        return None
    return {k: statistics.median(r[k] for r in runs) for k in ("compute", "local", "wan",
                                                                "total")}


# --- what the link allows -------------------------------------------------------------------

COLL_SITE_RANKS = 4         # ranks per site in the collective runs (2 hosts x 2 ranks)


def wan_delay_us():
    """The emulated WAN's one-way delay (cluster.WAN_DELAY, e.g. "5ms") in µs."""
    units = {"us": 1, "ms": 1e3, "s": 1e6}
    for u in ("us", "ms", "s"):
        if wc.WAN_DELAY.endswith(u):
            return float(wc.WAN_DELAY[:-len(u)]) * units[u]
    raise ValueError(f"WAN delay {wc.WAN_DELAY!r}")


def link_rate(wr):
    """The link's rate in bytes per µs: iperf3's measured rate, else the emulated rate."""
    iperf = value(wr, "bandwidth", wm.IPERF, 0)
    if iperf:
        return iperf  # MB/s = bytes/µs
    units = {"kbit": 1e3, "mbit": 1e6, "gbit": 1e9}
    for u, f in units.items():
        if wc.WAN_RATE.endswith(u):
            return float(wc.WAN_RATE[:-len(u)]) * f / 8 / 1e6
    raise ValueError(f"WAN rate {wc.WAN_RATE!r}")


def harness_factor(coll):
    """How much of a WAN crossing a rank's call takes on average, at least, in coll_latency's
    steady state, in one-way delays. The barrier's calls are timed back to back: 1.
    Between two calls of the others the harness synchronises the ranks with its own
    dissemination barrier (sync_ranks: in round k rank r hears from r - 2^k), which releases
    them at different times: simulated with messages within a site taking no time and across
    the sites one crossing each, and each call ending for a rank one crossing after the last
    rank of the other site entered it (no earlier than its own entry), the ranks of 2 sites
    × 4 settle with ranks 3 and 7 entering one crossing before the others, whose calls they
    then wait for: 1.25 on average (measured per rank through the gateways: 10.9 ms for those
    two, 5.5 ms for the others). Any MPI is held to this by the method, so it is the floor."""
    if coll == "barrier":
        return 1.0
    n, site = 2 * COLL_SITE_RANKS, lambda r: r // COLL_SITE_RANKS
    t = [0.0] * n
    for _ in range(4 * n):   # a few calls settle the pattern
        k = 1
        while k < n:
            sent = t[:]
            t = [max(t[r], sent[(r - k) % n] + (site(r) != site((r - k) % n)))
                 for r in range(n)]
            k <<= 1
        entry = t
        t = [max([entry[r]] + [entry[q] + 1 for q in range(n) if site(q) != site(r)])
             for r in range(n)]
        inside = [t[r] - entry[r] for r in range(n)]
    return sum(inside) / n


def floor_us(wr, coll, b):
    """The least time a call can take on this WAN, averaged over the ranks as the benchmark
    does, before the last rank has what it needs from the other site: the one-way delay times
    harness_factor (how far apart the benchmark's ranks enter the calls, in delays: its
    barrier's messages are empty) plus the bytes one site must send the other at the link's
    rate (full duplex: both directions at once). None for the broadcast: the ranks at the root's site need nothing from the
    WAN, and the average includes them."""
    wire = {"barrier": 0, "allreduce": b, "alltoall": COLL_SITE_RANKS ** 2 * b}.get(coll)
    if wire is None:
        return None
    return harness_factor(coll) * wan_delay_us() + wire / link_rate(wr)


def demo_floor_ms(wr, config):
    """The least time per step the demo's two-site run can take: its computation (as it
    measured it) plus two one-way delays and the faces crossing the WAN at the link's rate.
    Each step waits for the other site twice in a chain: the ghost faces of step k leave a
    rank after its MPI_Allreduce of step k-1 has heard from the other site, and that rank's
    MPI_Allreduce of step k needs the other site's contributions, sent after it computed on
    those faces. The sites split the 2x2x2 grid in one dimension: 4 faces of (grid/2)^2
    doubles cross each way per step. None without a run."""
    s = demo_summary(wr, config)
    if s is None:
        return None
    grid = int(wm.DEMO_ARGS[wm.DEMO_ARGS.index("--grid") + 1])
    face_bytes = COLL_SITE_RANKS * (grid // 2) ** 2 * 8
    return s["compute"] + (2 * wan_delay_us() + face_bytes / link_rate(wr)) / 1e3


def above_floor(wr, coll, b, limit):
    """True when the speedup limit asks for more than the link allows against the better
    peer: better peer / floor < limit."""
    f = floor_us(wr, coll, b)
    _, _, best = speedup(wr, coll, b, "metampi")
    return f is not None and best is not None and best / f < limit


# --- targets --------------------------------------------------------------------------------


def latency_eval(wr, slug):
    """(verdict, details) of the latency target for one metampi mode."""
    ratios, best, missing = [], [], []
    for b in [b for b in expected_sizes(wm.P2P_MAX) if b <= LAT_SMALL]:
        mine, raw = value(wr, "latency", slug, b), value(wr, "latency", wm.RAW, max(b, 1))
        if mine is None or raw is None:
            missing.append(f"{'metampi' if mine is None else 'raw TCP'} at {human_bytes(b)}")
            continue
        ratios.append((mine / raw, b))
        best.append((best_value(wr, "latency", slug, b) /
                     best_value(wr, "latency", wm.RAW, max(b, 1)), b))
    if not ratios:
        return "not evaluated", "no results" + (": missing " + ", ".join(missing) if missing
                                                else "")
    w, wb = max(ratios), max(best)
    text = (f"worst {human_bytes(w[1])}: {w[0]:.3f}× raw TCP "
            f"({value(wr, 'latency', slug, w[1]):.0f} vs "
            f"{value(wr, 'latency', wm.RAW, max(w[1], 1)):.0f} µs); best rounds: worst "
            f"{wb[0]:.3f}×")
    if missing:
        text += "; missing " + ", ".join(missing)
    verdict = "not met" if w[0] > LAT_LIMIT else "not evaluated" if missing else "met"
    return verdict, text


def plain_eval(wr):
    """(verdict, details): the encrypted gateways' latency against the plaintext ones'
    ([wan] encrypt = off), 0-8 B; the worst size over all sizes in the details."""
    small, every = [], []
    for b in expected_sizes(wm.P2P_MAX):
        enc, plain = value(wr, "latency", "metampi", b), value(wr, "latency", "metampi-plain", b)
        if enc is not None and plain:
            every.append((enc / plain, b))
            if b <= LAT_SMALL:
                small.append((enc / plain, b))
    if not small:
        return "not evaluated", "no results for both"
    w, wa = max(small), max(every)
    text = (f"worst {human_bytes(w[1])}: {w[0]:.3f}× plaintext "
            f"({value(wr, 'latency', 'metampi', w[1]):.0f} vs "
            f"{value(wr, 'latency', 'metampi-plain', w[1]):.0f} µs); over all sizes worst "
            f"{human_bytes(wa[1])}: {wa[0]:.3f}×")
    return ("not met" if w[0] > PLAIN_LIMIT else "met"), text


def recovery_eval(wr):
    rec = wr.recovery
    if not rec.samples:
        return "not evaluated", ("no run gave a result" +
                                 (": " + "; ".join(rec.failures) if rec.failures else ""))
    worst = max(rec.samples)
    text = (f"worst of {len(rec.samples)} cuts: {worst:.2f} s (median "
            f"{statistics.median(rec.samples):.2f} s)")
    if rec.failures:
        text += f"; {len(rec.failures)} runs failed: {rec.failures[0]}"
    return ("not met" if worst > wrec.TARGET_S or rec.failures else "met"), text


def bandwidth_eval(wr, slug):
    iperf = value(wr, "bandwidth", wm.IPERF, 0)
    shares, missing = [], []
    for b in [b for b in expected_sizes(wm.P2P_MAX) if b >= BW_FROM]:
        mine = value(wr, "bandwidth", slug, b)
        if mine is None:
            missing.append(f"metampi at {human_bytes(b)}")
        elif iperf:
            shares.append((mine / iperf, b))
    if not iperf:
        missing.append("iperf3")
    if not shares:
        return "not evaluated", "no results" + (": missing " + ", ".join(missing) if missing
                                                else "")
    w = min(shares)
    text = (f"worst {human_bytes(w[1])}: {w[0]:.0%} of iperf3 "
            f"({value(wr, 'bandwidth', slug, w[1]):.1f} vs {iperf:.1f} MB/s)")
    if missing:
        text += "; missing " + ", ".join(missing)
    verdict = "not met" if w[0] < BW_SHARE else "not evaluated" if missing else "met"
    return verdict, text


def coll_rows(large):
    """(collective, size) pairs of the small or large collective target."""
    rows = []
    for coll in wm.COLLS:
        for b in wm.coll_sizes(coll):
            if coll == "barrier":
                if not large:
                    rows.append((coll, b))
            elif (b >= COLL_LARGE) if large else (b <= COLL_SMALL):
                rows.append((coll, b))
    return rows


def speedup(wr, coll, b, slug):
    """(better peer's latency / slug's, slug's, better peer's), None where missing."""
    program = wm.coll_program(coll)
    mine = value(wr, program, slug, b)
    peers = [v for v in (value(wr, program, p, b) for p in PEERS) if v is not None]
    best = min(peers) if peers else None
    return (best / mine if mine and best else None), mine, best


def coll_eval(wr, slug, large):
    limit = COLL_LARGE_SPEEDUP if large else COLL_SMALL_SPEEDUP
    got, missing = [], []
    for coll, b in coll_rows(large):
        s, mine, best = speedup(wr, coll, b, slug)
        if s is None:
            missing.append(f"{coll} {human_bytes(b)}" +
                           (" (no peer)" if mine is not None else ""))
        else:
            got.append((s, coll, b))
    if not got:
        return "not evaluated", "no results"
    ok = sum(1 for s, _, _ in got if s >= limit)
    w = min(got)
    where = w[1] if w[1] == "barrier" else f"{w[1]} {human_bytes(w[2])}"
    text = (f"{ok} of {len(got)} (collective, size) met; worst {where}: "
            f"{describe_slowdown(1 / w[0])} the better peer")
    beyond = sum(1 for s, coll, b in got if s < limit and above_floor(wr, coll, b, limit))
    if beyond:
        text += (f"; {beyond} of the {len(got) - ok} not met ask for more than the link allows "
                 f"(the better peer's time / the WAN floor < {limit:g}; see the tables)")
    if missing:
        text += "; missing " + ", ".join(missing)
    verdict = "not met" if ok < len(got) else "not evaluated" if missing else "met"
    return verdict, text


def floor_eval(wr, slug):
    """(verdict, details): the small collectives with a floor (not the broadcast) against
    it (issue 23, target 4)."""
    got, missing = [], []
    for coll, b in coll_rows(False):
        f = floor_us(wr, coll, b)
        if f is None:
            continue
        mine = value(wr, wm.coll_program(coll), slug, b)
        if mine is None:
            missing.append(f"{coll} {human_bytes(b)}")
        else:
            got.append((mine / f, coll, b))
    if not got:
        return "not evaluated", "no results"
    ok = sum(1 for r, _, _ in got if r <= FLOOR_LIMIT)
    w = max(got)
    where = w[1] if w[1] == "barrier" else f"{w[1]} {human_bytes(w[2])}"
    text = f"{ok} of {len(got)} (collective, size) met; worst {where}: {w[0]:.2f}× the floor"
    if missing:
        text += "; missing " + ", ".join(missing)
    verdict = "not met" if ok < len(got) else "not evaluated" if missing else "met"
    return verdict, text


def demo_eval(wr, config):
    """(verdict, details): the demo's two-site step time against its floor."""
    s, f = demo_summary(wr, config), demo_floor_ms(wr, config)
    if s is None or f is None:
        return "not evaluated", "no run"
    r = s["total"] / f
    text = (f"{s['total']:.2f} ms per step = {r:.2f}× (computation {s['compute']:.2f} + WAN "
            f"floor {f - s['compute']:.2f} ms)")
    return ("met" if r <= FLOOR_LIMIT else "not met"), text


def targets(wr):
    """The issue's targets for metampi with gateways, as (name, (verdict, details)); the same
    computed for --direct-wan follows in the details for comparison."""
    names = [
        f"{WAN.target_prefix}: ping-pong latency 0–{LAT_SMALL} B within "
        f"{LAT_LIMIT - 1:.0%} of the raw TCP round trip (0 B against 1 B), metampi with gateways",
        f"{WAN.target_prefix}: bandwidth {human_bytes(BW_FROM)}–{human_bytes(wm.P2P_MAX)} "
        f"at least {BW_SHARE:.0%} of iperf3 (one TCP stream), metampi with gateways",
        f"{WAN.target_prefix}: ping-pong latency 0–{LAT_SMALL} B of the encrypted gateways "
        f"within {PLAIN_LIMIT - 1:.0%} of the same with [wan] encrypt = off",
        f"{WAN.target_prefix}: traffic flows again at most {wrec.TARGET_S:g} s after a "
        f"{wrec.CUT_S:g} s cut of the WAN ends, metampi with gateways",
        f"{WAN.target_prefix}: Barrier, and Bcast, Allreduce, Alltoall of 4 B–"
        f"{human_bytes(COLL_SMALL)}, 2 sites × 4 ranks: at least {COLL_SMALL_SPEEDUP:g}× "
        "faster than both Open MPI and MPICH, metampi with gateways",
        f"{WAN.target_prefix}: Bcast, Allreduce, Alltoall of {human_bytes(COLL_LARGE)}–"
        f"{human_bytes(wm.COLL_MAX)}, 2 sites × 4 ranks: at least {COLL_LARGE_SPEEDUP:g}× "
        "faster than both, metampi with gateways",
        f"{WAN.target_prefix}: Barrier, Allreduce, Alltoall of 4 B–{human_bytes(COLL_SMALL)}, "
        f"2 sites × 4 ranks: within {FLOOR_LIMIT:g}× of the WAN floor (the broadcast has "
        "none), metampi with gateways",
        f"{WAN.target_prefix}: the demo's two-site step time within {FLOOR_LIMIT:g}× of its "
        "computation + its WAN floor, metampi with gateways",
    ]
    if wr.error:
        why = f"not measured: {wr.error}"
        return [(n, ("not evaluated", why)) for n in names]
    evals = [lambda s: latency_eval(wr, s), lambda s: bandwidth_eval(wr, s), None, None,
             lambda s: coll_eval(wr, s, False), lambda s: coll_eval(wr, s, True),
             lambda s: floor_eval(wr, s),
             lambda s: demo_eval(wr, "gateway" if s == "metampi" else "direct")]
    rows = []
    for name, ev in zip(names, evals):
        if ev is None:
            rows.append((name, plain_eval(wr) if "encrypt" in name else recovery_eval(wr)))
            continue
        direct_verdict, direct_text = ev("metampi-direct")
        compare = f"for comparison, --direct-wan: {direct_verdict}, {direct_text}"
        if "metampi" in wr.unavailable:
            rows.append((name, ("not evaluated", f"metampi with gateways not available "
                                                 f"({wr.unavailable['metampi']}); {compare}")))
        else:
            verdict, text = ev("metampi")
            if ev is evals[1] and value(wr, "bandwidth", "metampi-plain", wm.P2P_MAX):
                _, plain_text = ev("metampi-plain")
                compare = f"with [wan] encrypt = off: {plain_text}; {compare}"
            rows.append((name, (verdict, f"{text}; {compare}")))
    return rows
