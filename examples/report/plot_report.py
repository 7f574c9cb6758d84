#!/usr/bin/env python3
"""Draws the traffic matrices of an `mpirun --report-file` JSON file into a PNG.

  plot_report.py REPORT.json OUT.png

Left: bytes sent between sites (row: the sender's site), for a job on several sites; right:
bytes sent between ranks (row: the sender), when the report has the rank matrix (jobs of up to
64 ranks; larger jobs list their top pairs instead, drawn as a bar chart). The format is
described in docs/report.md. Needs matplotlib (Debian: python3-matplotlib, for /usr/bin/python3).
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def human(b):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if b < 1024 or unit == "GiB":
            return ("%d %s" % (b, unit)) if unit == "B" else ("%.1f %s" % (b, unit))
        b /= 1024.0
    return str(b)


def matrix(ax, values, labels, title):
    im = ax.imshow(values, cmap="Blues")
    ax.set_xticks(range(len(labels)))
    ax.set_yticks(range(len(labels)))
    ax.set_xticklabels(labels, rotation=90 if len(labels) > 8 else 0)
    ax.set_yticklabels(labels)
    ax.set_xlabel("to")
    ax.set_ylabel("from")
    ax.set_title(title)
    if len(labels) <= 8:
        top = max(max(row) for row in values) or 1
        for i, row in enumerate(values):
            for j, v in enumerate(row):
                ax.text(j, i, human(v), ha="center", va="center", fontsize=8,
                        color="white" if v > top / 2 else "black")
    plt.colorbar(im, ax=ax, label="bytes")


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot_report.py REPORT.json OUT.png")
    with open(sys.argv[1]) as f:
        rep = json.load(f)
    if rep.get("format") != "metampi-report" or rep.get("version") != 1:
        sys.exit("plot_report.py: %s is not a metampi report (version 1)" % sys.argv[1])
    sites = rep["sites"]
    panels = []
    if len(sites) > 1:
        panels.append("sites")
    panels.append("ranks")
    fig, axes = plt.subplots(1, len(panels), figsize=(6 * len(panels), 5), squeeze=False)
    for ax, what in zip(axes[0], panels):
        if what == "sites":
            values = [[cell["bytes"] for cell in row] for row in rep["site_matrix"]]
            matrix(ax, values, sites, "bytes between sites")
        elif rep["rank_matrix"] is not None:
            values = [[cell["bytes"] for cell in row] for row in rep["rank_matrix"]]
            matrix(ax, values, [str(r) for r in range(rep["ranks"])], "bytes between ranks")
        else:
            pairs = rep["top_pairs"][:20]
            ax.barh(["%d→%d" % (p["from"], p["to"]) for p in pairs],
                    [p["bytes"] for p in pairs], color="#4c72b0")
            ax.invert_yaxis()
            ax.set_xlabel("bytes")
            ax.set_title("top rank pairs of %d ranks" % rep["ranks"])
    wan = sum(d["wait_s"]["wan"] for d in rep["rank_detail"])
    fig.suptitle("metampi traffic: %d ranks, %d site(s); %.3f s waited on the WAN"
                 % (rep["ranks"], len(sites), wan))
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=100)


if __name__ == "__main__":
    main()
