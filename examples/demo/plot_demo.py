#!/usr/bin/env python3
"""Plots metampi-demo's time per step (its --times files) into a PNG.

  plot_demo.py --out demo.png ONE-SITE.times [TWO-SITES.times]

Left: the mean time per step of each run, stacked: computation, communication within a
site, communication across the WAN. Right: every step of each run, stacked the same way
(one panel per run, same time axis). The warm-up steps named in the file (they also open
the connections) are left out of both.
"""
import argparse
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

PARTS = ("compute", "local comm", "WAN comm")
COLOURS = ("#4c72b0", "#55a868", "#c44e52")


def read_times(path):
    meta, rows = {}, []
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                for key, val in re.findall(r"(\w+) (\S+)", line[1:]):
                    meta.setdefault(key, val)
                continue
            cols = line.split()
            if len(cols) < 5:
                sys.exit("plot_demo.py: %s: malformed line: %s" % (path, line.strip()))
            rows.append([int(cols[0])] + [float(x) * 1e3 for x in cols[1:]])
    warmup = int(meta.get("warmup", 0))
    rows = rows[warmup:]
    if not rows:
        sys.exit("plot_demo.py: %s: no steps after the warm-up" % path)
    sites = int(meta.get("sites", 1))
    label = "%s site%s" % ("one" if sites == 1 else str(sites) if sites > 2 else "two",
                           "" if sites == 1 else "s")
    return {"label": label, "ranks": meta.get("ranks", "?"), "grid": meta.get("grid", "?"),
            "steps": [r[0] for r in rows], "parts": [[r[1 + i] for r in rows] for i in range(3)]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("times", nargs="+")
    o = ap.parse_args()
    runs = [read_times(p) for p in o.times]

    fig, axes = plt.subplots(1, 1 + len(runs), figsize=(4.5 + 4.5 * len(runs), 4.5),
                             gridspec_kw={"width_ratios": [1] + [2] * len(runs)})
    bars = axes[0]
    bottom = [0.0] * len(runs)
    for i, (name, colour) in enumerate(zip(PARTS, COLOURS)):
        means = [sum(r["parts"][i]) / len(r["parts"][i]) for r in runs]
        bars.bar([r["label"] for r in runs], means, bottom=bottom, color=colour, label=name,
                 width=0.6)
        bottom = [b + m for b, m in zip(bottom, means)]
    for x, total in enumerate(bottom):
        bars.annotate("%.2f ms" % total, (x, total), ha="center", va="bottom", fontsize=9)
    bars.set_ylabel("time per step, ms (mean over ranks and steps)")
    bars.set_title("mean time per step")
    bars.set_ylim(0, max(bottom) * 1.15)

    # the time axis of the step panels ends a little above the 98th percentile of the step
    # times, so that a few slow steps (a busy machine) do not flatten the rest
    totals = sorted(sum(p[s] for p in r["parts"]) for r in runs for s in range(len(r["steps"])))
    top = totals[min(len(totals) - 1, int(0.98 * len(totals)))] * 1.3
    cut = sum(t > top for t in totals)
    for ax, r in zip(axes[1:], runs):
        ax.stackplot(r["steps"], *r["parts"], colors=COLOURS, labels=PARTS, step="mid")
        ax.set_xlim(r["steps"][0], r["steps"][-1])
        ax.set_ylim(0, top)
        ax.set_xlabel("step")
        ax.set_ylabel("ms (mean over ranks)")
        ax.set_title("%s: every step" % r["label"])
        if cut:
            ax.text(0.99, 0.98, "axis cut at %.0f ms" % top, transform=ax.transAxes,
                    ha="right", va="top", fontsize=8)
    runs_desc = ", ".join("%s" % r["label"] for r in runs)
    fig.suptitle("metampi-demo: 3-D Jacobi stencil, %s ranks, grid %s (%s)"
                 % (runs[0]["ranks"], runs[0]["grid"], runs_desc))
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, frameon=False)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    fig.savefig(o.out, dpi=110)


if __name__ == "__main__":
    main()
