"""Cost per node against graph size for every build path, from runtime_bench's CSV and
cuda_core_peer's: one panel per graph shape, log-log. Each path keeps one colour (and line
style) in every panel, and the one legend sits below the panels, off the lines.

    python3 bench/plot.py runtime_bench.csv [cuda_core_peer.csv] -o performance.png
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
    args = parser.parse_args()
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
    handles = {}
    for ax in axes[0]:
        for h, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, h)
    columns = min(4, len(handles))
    fig.legend([handles[p] for p in paths if p in handles], [p for p in paths if p in handles],
               loc="lower center", ncol=columns, fontsize=8, frameon=False)
    rows = (len(handles) + columns - 1) // columns
    fig.tight_layout(rect=(0, 0.05 * rows, 1, 1))
    fig.savefig(args.output, dpi=120)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
