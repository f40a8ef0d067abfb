"""Cost per node against graph size for every build path, from runtime_bench's CSV and
cuda_core_peer's: one panel per graph shape, log-log.

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
    fig, axes = plt.subplots(1, len(shapes), figsize=(6 * len(shapes), 4.5), squeeze=False)
    for ax, shape in zip(axes[0], shapes):
        for (s, path), points in sorted(series.items()):
            if s != shape:
                continue
            points.sort()
            style = "--" if path.startswith("hand") else (":" if path.startswith("cuda.core") else "-")
            ax.plot([n for n, _ in points], [u for _, u in points], style, marker="o", label=path)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"build cost per node: {shape}")
        ax.set_xlabel("nodes")
        ax.set_ylabel("microseconds per node")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
