"""Plots of the study report. Every plot keeps its legend outside the axes (so no measured point hides
under it) and sets points that share an x value a little apart (dodge), each series with its own marker."""
import io
import os

import matplotlib
from PIL import Image  # matplotlib's own dependency

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

MARKERS = ["o", "s", "^", "D", "v", "P", "X", "<", ">", "h"]
COLOURS = plt.get_cmap("tab10").colors


def figure(width=8.0, height=3.8):
    return plt.subplots(figsize=(width, height))


def dodge(x, k, n, step=1.05):
    """x moved for series k of n so that equal x values of n series sit side by side on a log axis."""
    return x * step ** (k - (n - 1) / 2)


def finish(ax, xlabel, ylabel, title, log_x=True, log_y=False):
    """Axes labels, scales, title and a legend outside the axes, on the right: the same for every plot."""
    if log_x:
        ax.set_xscale("log")
    if log_y:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0, frameon=False)


PALETTE_COLOURS = 256  # a plot's lines, markers, text edges and colour maps fit in 256 colours to the eye


def save(fig, out, name):
    """The figure as a PNG of 256 colours: a third of the bytes of matplotlib's RGBA at the same size and dpi,
    which matters because every committed report's pictures travel with the tree (tests/python/test_tree_budget.py)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")  # "tight" keeps the outside legend
    plt.close(fig)
    buf.seek(0)
    with Image.open(buf) as image:
        # method 0 = median cut, dither 0 = none (numbers rather than enum names: Pillow before 9.1 has no enums)
        palette = image.convert("RGB").quantize(colors=PALETTE_COLOURS, method=0, dither=0)
    palette.save(os.path.join(out, name), optimize=True)


def stacked_bars(out, name, labels, parts, ylabel, title):
    """One bar per label, stacked from parts [(part name, [value per label])]; a part named 'other...' is grey."""
    fig, ax = figure(7.5, 3.6)
    bottom = [0.0] * len(labels)
    for i, (part, values) in enumerate(parts):
        other = part.startswith("other")
        ax.bar(labels, values, bottom=bottom, label=part, color="#bbbbbb" if other else COLOURS[i % len(COLOURS)],
               hatch="//" if other else None, edgecolor="white" if not other else "#888888")
        bottom = [b + v for b, v in zip(bottom, values)]
    finish(ax, "", ylabel, title, log_x=False)
    save(fig, out, name)


def roofline(out, name, points, copy_bw, peaks, stage_order):
    """Every variant's best tuning at its modelled intensity: colour by stage, filled circles float, open
    squares double, the variants of one stage set a little apart (4% a variant) so none hides another; roofs: the copy bandwidth x intensity and the float and double peaks."""
    fig, ax = figure(8.5, 4.6)
    xs = [0.1, 50.0]
    ax.plot(xs, [x * copy_bw * 1e-9 for x in xs], color="black", linestyle="--", linewidth=1,
            label=f"copy bandwidth {copy_bw * 1e-12:.2f} TB/s x intensity")
    for (prec, peak), style in zip(sorted(peaks.items(), reverse=True), ("-", "-.")):
        ridge = peak / copy_bw
        ax.plot([ridge, xs[1]], [peak * 1e-9, peak * 1e-9], color="dimgray", linestyle=style, linewidth=1.5,
                label=f"{prec} peak {peak * 1e-12:.1f} TFLOP/s (from {ridge:.1f} flop/byte)")
    for si, stage in enumerate(stage_order):
        mine = [p for p in points if p["stage"] == stage]
        if not mine:
            continue
        variants = sorted({p["variant"] for p in mine})
        colour = COLOURS[si % len(COLOURS)]  # the same colour as the stage's bars in bandwidth_bars
        for p in mine:
            x = dodge(p["intensity"], variants.index(p["variant"]), len(variants), 1.04)
            filled = p["precision"] == "float"
            ax.plot(x, p["gflops"], "o" if filled else "s", markersize=5, color=colour,
                    markerfacecolor=colour if filled else "none")
        ax.plot([], [], "o", color=colour, label=f"{stage} ({len(variants)} variants)")
    ax.plot([], [], "o", color="gray", label="float (filled)")
    ax.plot([], [], "s", color="gray", markerfacecolor="none", label="double (open)")
    ax.set_xlim(*xs)
    finish(ax, "arithmetic intensity (modelled flop / modelled byte)", "GFLOP/s",
           "Roofline: every GPU stage variant's best tuning", log_x=True, log_y=True)
    save(fig, out, name)


def bandwidth_bars(out, name, rows, stage_order):
    """Fraction of the copy bandwidth of every variant's best tuning, grouped by stage (the zero-flop stages too)."""
    rows = sorted(rows, key=lambda r: (stage_order.index(r["stage"]) if r["stage"] in stage_order else 99,
                                       r["label"]))
    fig, ax = figure(8.5, 0.8 + 0.2 * len(rows))
    y = list(range(len(rows)))[::-1]
    colours = [COLOURS[stage_order.index(r["stage"]) % len(COLOURS) if r["stage"] in stage_order else 9] for r in rows]
    ax.barh(y, [100 * r["fraction"] for r in rows], color=colours, height=0.7)
    for yi, r in zip(y, rows):
        ax.text(100 * r["fraction"] + 0.5, yi, f"{100 * r['fraction']:.1f}%", va="center", fontsize=6)
    ax.set_yticks(y, [r["label"] for r in rows], fontsize=7)
    ax.set_xlim(0, 100)
    ax.axvline(100, color="black", linestyle="--", linewidth=1)
    ax.set_xlabel("% of the measured device-to-device copy bandwidth (modelled bytes / time)")
    ax.set_title("How close each variant's best tuning comes to the copy bandwidth", fontsize=10)
    ax.grid(True, axis="x", alpha=0.3)
    save(fig, out, name)
