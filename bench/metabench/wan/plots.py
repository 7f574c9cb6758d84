"""The WAN section's plots (docs/perf/wan_*.png), from a measure.WanRun."""
import os

from metabench import plots
from metabench.formatting import human_bytes
from metabench.plots import pyplot
from metabench.programs import COLL_TITLES, expected_sizes
from metabench.wan import cluster as wc
from metabench.wan import measure as wm
from metabench.wan.targets import MPI_SLUGS, demo_summary, value

STYLES = dict(plots.STYLES, **{"metampi-direct": ("tab:orange", "D"), wm.RAW: ("black", "x")})
PLOTS = ("wan_p2p.png", "wan_coll.png", "wan_demo.png")


def plot(wr, perfdir):
    """Writes docs/perf/wan_*.png; returns their paths."""
    plt = pyplot()
    os.makedirs(perfdir, exist_ok=True)
    paths = [os.path.join(perfdir, n) for n in PLOTS]
    plot_p2p(plt, wr, paths[0])
    plot_coll(plt, wr, paths[1])
    plot_demo(plt, wr, paths[2])
    return paths


def line(ax, wr, program, slug, sizes, style="-"):
    pts = [(b, value(wr, program, slug, b)) for b in sizes if b > 0]
    pts = [(b, v) for b, v in pts if v is not None]
    if pts:
        color, marker = STYLES[slug]
        ax.plot(*zip(*pts), marker=marker, color=color, linestyle=style,
                label=wm.name_of(slug))
    return [b for b, _ in pts]


def size_axis(ax, sizes, every=1):
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    sizes = sorted(set(sizes))
    if sizes:
        ax.set_xticks(sizes[::every])
        ax.set_xticklabels([human_bytes(b).replace(" ", "\n") for b in sizes[::every]])
    ax.grid(True, which="both", alpha=0.3)


def plot_p2p(plt, wr, path):
    fig, axes = plt.subplots(1, 2, figsize=(15, 5.5))
    sizes = expected_sizes(wm.P2P_MAX)
    for ax, program, ylabel, title in (
            (axes[0], "latency", "one-way latency, median (µs)",
             "Ping-pong latency between two sites (lower is better)"),
            (axes[1], "bandwidth", "bandwidth, median (MB/s)",
             "Streaming bandwidth between two sites, window of 64 (higher is better)")):
        shown = []
        for slug in MPI_SLUGS:
            shown += line(ax, wr, program, slug, sizes)
        shown += line(ax, wr, program, wm.RAW, sizes, "--")
        iperf = value(wr, "bandwidth", wm.IPERF, 0)
        if program == "bandwidth" and iperf:
            ax.axhline(iperf, color="tab:gray", linestyle=":",
                       label=f"iperf3, one stream ({iperf:.0f} MB/s)")
        size_axis(ax, shown, 2)
        ax.set(xlabel="message size", ylabel=ylabel, title=title)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
        if wr.error:
            ax.text(0.5, 0.5, "not measured", transform=ax.transAxes, ha="center")
    fig.suptitle(f"Two emulated sites, WAN {wc.WAN_DELAY} one way, {wc.WAN_RATE}/s")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_coll(plt, wr, path):
    fig, axes = plt.subplots(2, 2, figsize=(14, 9))
    for ax, coll in zip(axes.flat, wm.COLLS):
        program = wm.coll_program(coll)
        if coll == "barrier":
            vals = [value(wr, program, s, 0) for s in MPI_SLUGS]
            ax.bar([wm.name_of(s).replace(" (", "\n(").replace(" --", "\n--") for s in
                    MPI_SLUGS], [v or 0 for v in vals], color=[STYLES[s][0] for s in MPI_SLUGS])
            for x, v in enumerate(vals):
                ax.annotate("n/a" if v is None else f"{v:.0f}", (x, v or 0), ha="center",
                            va="bottom")
            ax.set(ylabel="latency, median (µs)", title=COLL_TITLES[coll])
            ax.grid(True, axis="y", alpha=0.3)
            continue
        shown = []
        for slug in MPI_SLUGS:
            shown += line(ax, wr, program, slug, wm.coll_sizes(coll))
        size_axis(ax, shown)
        ax.set(xlabel="bytes per rank pair" if coll == "alltoall" else "message size",
               ylabel="latency, median (µs)", title=COLL_TITLES[coll])
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
    fig.suptitle("Collectives on 2 sites × 2 hosts × 2 ranks, WAN "
                 f"{wc.WAN_DELAY} one way, {wc.WAN_RATE}/s (lower is better)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_demo(plt, wr, path):
    fig, ax = plt.subplots(figsize=(10, 4))
    configs = list(wm.DEMO_CONFIGS)
    parts = (("compute", "computation", "tab:green"), ("local", "communication in a site",
                                                       "tab:blue"),
             ("wan", "communication across the WAN", "tab:red"))
    left = [0.0] * len(configs)
    for key, label, color in parts:
        widths = [(demo_summary(wr, c) or {}).get(key, 0) for c in configs]
        ax.barh([wm.DEMO_TITLES[c] for c in configs], widths, left=left, color=color, label=label)
        left = [a + b for a, b in zip(left, widths)]
    for y, total in enumerate(left):
        ax.annotate(f"{total:.1f} ms" if total else "n/a", (total, y), va="center",
                    xytext=(4, 0), textcoords="offset points")
    ax.invert_yaxis()
    ax.set_xlim(0, max(left + [1.0]) * 1.15)
    ax.set(xlabel="time per step, median over the rounds (ms)",
           title="metampi-demo, 8 ranks: one site vs two sites")
    ax.grid(True, axis="x", alpha=0.3)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
