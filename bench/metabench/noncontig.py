"""Non-contiguous transfers (bench/p2p/noncontig.c): strided vectors and the faces of a 3-D
array against contiguous transfers of the same bytes, with 2 ranks; the rounds, the datatype
issue's two targets, the section of the report and its plot."""
import re

from metabench.formatting import describe_slowdown, fmt, human_bytes
from metabench.plots import STYLES
from metabench.process import first_error_line, run
from metabench.results import median_or_none
from metabench.schedule import rotated

# noncontig runs: (label, arguments after max_bytes/scale): strided vectors of 1 and 4 MiB,
# and the faces of a 256^3 array of doubles (512 KiB each)
NC_RUNS = [("vector 1 MiB", [str(1 << 20)]), ("vector 4 MiB", [str(4 << 20)]),
           ("faces 256^3", [str(1 << 20), "256"])]
NC_MIN_BLOCK = 256          # blocks from here on must reach NC_CONTIG_SHARE of contiguous
NC_CONTIG_SHARE = 0.90


def parse_noncontig(out):
    """{(case, block bytes, bytes): MB/s} from noncontig's output."""
    return {(m.group(1), int(m.group(2)), int(m.group(3))): float(m.group(4))
            for m in re.finditer(r"^(\w+) (\d+) (\d+) \d+ ([\d.]+)$", out, re.M)}


class NcResult:
    """Per noncontig run label and MPI: samples per (case, block, bytes), and whether it failed."""

    def __init__(self):
        self.samples = {}
        self.failed = None

    def median(self, key):
        return None if self.failed else median_or_none(self.samples.get(key, []))


def measure_noncontig(mpis, args, idle, busy):
    """{run label: {mpi slug: NcResult}}; rounds interleave the MPIs as for point to point.
    The load seen before each run goes to busy (the point-to-point section's)."""
    results = {label: {m.slug: NcResult() for m in mpis} for label, _ in NC_RUNS}
    for rnd in range(args.rounds):
        for label, extra in NC_RUNS:
            for mpi in rotated(mpis, rnd):
                r = results[label][mpi.slug]
                if "noncontig" not in mpi.programs or r.failed:
                    continue
                idle.before_run(busy)
                status, out, err, seconds = run(mpi.noncontig_command(extra, args.scale),
                                                args.timeout)
                values = parse_noncontig(out)
                for key, v in values.items():
                    r.samples.setdefault(key, []).append(v)
                if status != 0:
                    r.failed = f"exit status {status}: {first_error_line(err + out)}"
                    mpi.failed.setdefault("noncontig", f"{label}: {r.failed}")
                print(f"    noncontig {label:12} {mpi.name:8} {seconds:6.1f} s "
                      f"{'ok' if status == 0 else 'FAILED: ' + r.failed}", flush=True)
        print(f"  noncontig round {rnd + 1}/{args.rounds} done", flush=True)
    return results


def nc_keys(nc, label):
    """The (case, block, bytes) keys of a run, contig first, then by case and block."""
    keys = set()
    for r in nc[label].values():
        keys |= set(r.samples)
    return sorted(keys, key=lambda k: (k[0] != "contig", k[0], k[1]))


def nc_contig(nc, label, slug, nbytes):
    return nc[label][slug].median(("contig", nbytes, nbytes))


def nc_targets(nc):
    """The two targets of the datatype issue, as (name, (verdict, worst))."""
    share, versus = [], []
    missing = False
    for label, _ in NC_RUNS:
        for key in nc_keys(nc, label):
            case, block, nbytes = key
            if case == "contig":
                continue
            mine = nc[label]["metampi"].median(key)
            contig = nc_contig(nc, label, "metampi", nbytes)
            peers = [nc[label][p].median(key) for p in ("openmpi", "mpich")]
            peers = [v for v in peers if v is not None]
            if mine is None:
                missing = True
                continue
            if case == "vector" and block >= NC_MIN_BLOCK and contig:
                share.append((mine / contig, f"{label}, {human_bytes(block)} blocks"))
            if peers:
                versus.append((mine / max(peers), f"{label}, {case} {human_bytes(block)} blocks"))

    def verdict(values, limit, describe):
        if not values:
            return ("not evaluated", "no results")
        worst = min(values)
        status = "met" if worst[0] >= limit and not missing else "not met"
        return (status, describe(worst) + ("; metampi results missing" if missing else ""))

    return [
        (f"Strided vectors with blocks ≥ {NC_MIN_BLOCK} B: ≥ {NC_CONTIG_SHARE:.0%} of "
         "metampi's contiguous bandwidth (same bytes, same run)",
         verdict(share, NC_CONTIG_SHARE, lambda w: f"{w[1]}: {w[0]:.0%} of contiguous")),
        ("Non-contiguous bandwidth at or above the better of Open MPI and MPICH for every "
         "block size",
         verdict(versus, 1.0, lambda w: f"{w[1]}: metampi {describe_slowdown(1 / w[0])} the "
                                        "better peer")),
    ]


def pct(a, b):
    return "n/a" if a is None or not b else f"{a / b:.0%}"


def noncontig_section(nc, mpis):
    lines = ["## Non-contiguous transfers", "",
             "`bench/p2p/noncontig.c`, OSU bandwidth method with a window of 16 messages (MB/s, "
             "MB = 10^6 B), both sides using the same datatype. **Strided vector**: "
             "`MPI_Type_vector` of doubles with blocks of B bytes, every other block (so the "
             "data spans twice the message), for B = 8 B ... 64 KiB; **faces**: the three faces "
             "of a 256 x 256 x 256 array of doubles (`MPI_Type_create_subarray`, C order): "
             "face_x is one contiguous 512 KiB plane, face_y 256 rows of 2 KiB, face_z 65536 "
             "single doubles — the halo exchange of a 3-D domain decomposition. Each run also "
             "sends the same number of bytes contiguously (`contig`); \"% contig\" is each "
             "MPI's non-contiguous bandwidth as a share of its own contiguous bandwidth in the "
             "same run. Every case is verified byte by byte first.", "",
             "**Higher is better. Ratio = metampi / better peer: above 1 means metampi is "
             "faster.**", ""]
    for label, _ in NC_RUNS:
        lines += [f"### {label}", "",
                  "| case | block | metampi (MB/s) | % contig | Open MPI (MB/s) | % contig | "
                  "MPICH (MB/s) | % contig | metampi / best peer |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for key in nc_keys(nc, label):
            case, block, nbytes = key
            cells = []
            for m in mpis:
                v = nc[label][m.slug].median(key)
                cells += [fmt(v, 1) if v is not None else "—",
                          pct(v, nc_contig(nc, label, m.slug, nbytes))]
            mine = nc[label]["metampi"].median(key)
            peers = [v for v in (nc[label][p].median(key) for p in ("openmpi", "mpich"))
                     if v is not None]
            r = "n/a" if mine is None or not peers else f"{mine / max(peers):.2f}"
            lines.append(f"| {case} | {human_bytes(block)} | " + " | ".join(cells) + f" | {r} |")
        failed = [f"{m.name}: {nc[label][m.slug].failed}" for m in mpis
                  if nc[label][m.slug].failed]
        lines += [""] + [f"- {f}" for f in failed] + [""]
    return lines + ["![non-contiguous transfers](perf/noncontig.png)", ""]


def plot_noncontig(plt, nc, mpis, path):
    """One panel per vector run (bandwidth by block size; dotted: each MPI's contiguous
    bandwidth of the same bytes), and one with the faces."""
    vec_runs = [label for label, _ in NC_RUNS if label.startswith("vector")]
    fig, axes = plt.subplots(1, len(vec_runs) + 1, figsize=(6 * (len(vec_runs) + 1), 5))
    for ax, label in zip(axes, vec_runs):
        blocks = []
        for m in mpis:
            color, marker = STYLES[m.slug]
            pts = [(k[1], nc[label][m.slug].median(k)) for k in nc_keys(nc, label)
                   if k[0] == "vector"]
            pts = [(b, v) for b, v in pts if v is not None]
            if pts:
                ax.plot(*zip(*pts), marker=marker, color=color, label=m.name)
                blocks = sorted(set(blocks) | {b for b, _ in pts})
            contig = [nc[label][m.slug].median(k) for k in nc_keys(nc, label) if k[0] == "contig"]
            if contig and contig[0] is not None:
                ax.axhline(contig[0], color=color, linestyle=":", linewidth=1)
        ax.set_xscale("log", base=2)
        if blocks:
            ax.set_xticks(blocks[::2])
            ax.set_xticklabels([human_bytes(b).replace(" ", "\n") for b in blocks[::2]])
        ax.set(xlabel="block size (every other block sent)", ylabel="bandwidth, median (MB/s)",
               title=f"Strided vector, {label[7:]} per message")
        ax.grid(True, which="both", alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend()
    ax = axes[-1]
    label = next(label for label, _ in NC_RUNS if label.startswith("faces"))
    keys = nc_keys(nc, label)
    width = 0.8 / max(len(mpis), 1)
    for i, m in enumerate(mpis):
        color, _ = STYLES[m.slug]
        vals = [nc[label][m.slug].median(k) or 0 for k in keys]
        ax.bar([x + i * width for x in range(len(keys))], vals, width, color=color,
               label=m.name)
    ax.set_xticks([x + width * (len(mpis) - 1) / 2 for x in range(len(keys))])
    ax.set_xticklabels([k[0] for k in keys])
    ax.set(ylabel="bandwidth, median (MB/s)", title=f"3-D halo faces ({label[6:]} doubles)")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
