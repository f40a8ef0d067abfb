"""Cost per node against graph size for every build path, from runtime_bench's CSV and
cuda_core_peer's: one panel per graph shape, log-log. Each path keeps one colour (and line
style) in every panel, and the one legend sits below the panels, off the lines.

With --ratios FILE, a second figure: cgraph's ratio to the hand-written reference against
graph size for the other measures (updates, instantiation, launch), one panel per measure,
one colour per path and one line style per shape, with the issue's target drawn across.

    python3 bench/plot.py runtime_bench.csv [cuda_core_peer.csv] -o performance.png [--ratios ratios.png]
"""
import argparse
import csv
import collections

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("csv", nargs="+")
    parser.add_argument("-o", "--output", default="performance.png")
    parser.add_argument("--ratios", help="also draw the ratios of the other measures into this file")
    args = parser.parse_args()
    if args.ratios:
        plot_ratios(args.csv, args.ratios)
    series = collections.defaultdict(list)  # (shape, path) -> [(nodes, us)]
    for name in args.csv:
        with open(name) as f:
            for row in csv.DictReader(f):
                if row["measure"] == "build":
                    series[(row["shape"], row["path"])].append((int(row["nodes"]), float(row["us_per_unit"])))
    shapes = sorted({shape for shape, _ in series})
    paths = sorted({path for _, path in series})
    palette = plt.get_cmap("tab20").colors
    colour = {path: palette[i % len(palette)] for i, path in enumerate(paths)}
    fig, axes = plt.subplots(1, len(shapes), figsize=(6 * len(shapes), 4.8), squeeze=False)
    for ax, shape in zip(axes[0], shapes):
        for (s, path), points in sorted(series.items()):
            if s != shape:
                continue
            points.sort()
            style = "--" if path.startswith("hand") else (":" if path.startswith("cuda.core") else "-")
            ax.plot([n for n, _ in points], [u for _, u in points], style, marker="o", color=colour[path], label=path)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"build cost per node: {shape}")
        ax.set_xlabel("nodes")
        ax.set_ylabel("microseconds per node")
        ax.grid(True, which="both", alpha=0.3)
    place_legend(fig, axes[0], order=paths, columns=4)
    fig.savefig(args.output, dpi=120)
    print(f"wrote {args.output}")


def place_legend(fig, axes, order, columns):
    """One legend for every panel, below them and off the lines: each label once, in `order`
    where given (else as first drawn), at most `columns` a row."""
    handles = {}
    for ax in axes:
        for h, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, h)
    labels = [p for p in order if p in handles] if order else list(handles)
    columns = max(1, min(columns, len(labels)))
    fig.legend([handles[p] for p in labels], labels, loc="lower center", ncol=columns, fontsize=8, frameon=False)
    rows = (len(labels) + columns - 1) // columns
    fig.tight_layout(rect=(0, 0.05 * rows, 1, 1))


# The measures the ratio figure draws, with the targets issue 13 sets for each.
RATIO_TARGETS = {"update one": (1.10, 1.30), "update all": (1.10,), "instantiate": (1.02,), "launch": (1.02,)}
TARGET_NOTES = {"update one": "targets 1.10 by handle, 1.30 by name"}


def plot_ratios(names, output):
    # (measure, path, shape) -> [(nodes, ratio, q1, q3)]; the quartiles of the cell's rounds where
    # the CSV has them (runtime_bench since run 48), drawn as a bar through the median.
    series = collections.defaultdict(list)
    for name in names:
        with open(name) as f:
            for row in csv.DictReader(f):
                path = row["path"].split(" (")[0]  # without the update path taken
                if row["measure"] in RATIO_TARGETS and path.startswith("cgraph"):
                    ratio = float(row["ratio_to_hand"])
                    q1 = float(row["ratio_q1"]) if row.get("ratio_q1") else ratio
                    q3 = float(row["ratio_q3"]) if row.get("ratio_q3") else ratio
                    series[(row["measure"], path, row["shape"])].append((int(row["nodes"]), ratio, q1, q3))
    measures = [m for m in RATIO_TARGETS if any(k[0] == m for k in series)]
    if not measures:
        print(f"no ratios to draw into {output}")
        return
    paths = sorted({k[1] for k in series})
    shapes = sorted({k[2] for k in series})
    palette = plt.get_cmap("tab10").colors
    colour = {path: palette[i % len(palette)] for i, path in enumerate(paths)}
    line = {shape: style for shape, style in zip(shapes, ["-", "--", ":", "-."])}
    fig, axes = plt.subplots(1, len(measures), figsize=(max(8, 5 * len(measures)), 4.6), squeeze=False)
    for ax, measure in zip(axes[0], measures):
        for (m, path, shape), points in sorted(series.items()):
            if m != measure:
                continue
            points.sort()
            nodes = [p[0] for p in points]
            ratios = [p[1] for p in points]
            ax.plot(nodes, ratios, line[shape], marker="o", color=colour[path], label=f"{path}, {shape}")
            spread = [[r - q1 for _, r, q1, _ in points], [q3 - r for _, r, _, q3 in points]]
            if any(any(v > 0 for v in side) for side in spread):
                ax.errorbar(nodes, ratios, yerr=spread, fmt="none", ecolor=colour[path], alpha=0.45, capsize=2)
        for target in RATIO_TARGETS[measure]:
            ax.axhline(target, color="black", linewidth=0.8, alpha=0.6)
        ax.axhline(1.0, color="grey", linewidth=0.5, alpha=0.5)
        ax.set_xscale("log")
        note = TARGET_NOTES.get(measure, f"target {RATIO_TARGETS[measure][0]:.2f}")
        ax.set_title(f"{measure}: ratio to hand-written\n({note})", fontsize=10)
        ax.set_xlabel("nodes")
        ax.set_ylabel("ratio")
        ax.grid(True, which="both", alpha=0.3)
    place_legend(fig, axes[0], order=None, columns=min(4, 2 * len(measures)))
    fig.savefig(output, dpi=120)
    print(f"wrote {output}")


if __name__ == "__main__":
    main()
