"""What every plot shares: matplotlib without a display, the MPIs' colours and markers, the
common end of a figure."""

STYLES = {"metampi": ("tab:red", "o"), "openmpi": ("tab:blue", "s"), "mpich": ("tab:green", "^")}


def pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def finish(plt, fig, ax, path):
    ax.grid(True, which="both", alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
