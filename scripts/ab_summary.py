#!/usr/bin/env python3
"""The summary of an A/B that scripts/ab_runtime_bench.sh wrote: for every cell (shape, nodes,
path) of the `build` measure, the median over the old runs and over the new runs of the ratio
to the hand-written build of the same round, side by side. With --absolute: the median
microseconds a unit (a node, for builds) of each side, their range over the runs, and new / old,
for runs whose hand-written rows moved between runs (the machine, not the code), where a ratio
to them hides what cgraph's own rows did. With --runs: each run's ratio beside the medians, and
"split" where every new run is below every old one ("split up": above). A cell of the same code
moves by 5% between runs (docs/performance.md, run 50), so a median's change alone is no
evidence; a split over three runs a side is. With --spread (an A/A, ab_runtime_bench.sh's
PIN_AA): each side's runs' range (largest ratio less smallest) in every cell, then the mean,
median and largest range of each side over the cells, each range as a share of its cell's
median (the reference rows, 1.000 in every run, left out): the noise of one run, side by side.

    python3 scripts/ab_summary.py OUT/NAME-*.csv [--title "old = REV, …"] [--absolute | --runs | --spread] > summary.txt

A CSV's run (old or new) is the last word of its name before .csv (NAME-RUN-old.csv).
"""
import argparse
import collections
import csv
import statistics


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csvs", nargs="+")
    ap.add_argument("--title", default="")
    ap.add_argument("--measure", default="build")
    ap.add_argument("--absolute", action="store_true")
    ap.add_argument("--runs", action="store_true")
    ap.add_argument("--spread", action="store_true")
    args = ap.parse_args()
    column = "us_per_unit" if args.absolute else "ratio_to_hand"
    ratios = collections.defaultdict(lambda: collections.defaultdict(list))
    for name in sorted(args.csvs):
        side = name.rsplit("-", 1)[-1].removesuffix(".csv")
        with open(name) as f:
            for row in csv.DictReader(f):
                if row["measure"] == args.measure:
                    ratios[(row["shape"], int(row["nodes"]), row["path"])][side].append(float(row[column]))
    if args.title:
        print(f"# {args.title}")
    if args.absolute:
        print(f"{'shape':14s} {'nodes':>6s}  {'path':48s} {'old us':>6s} {'range':>13s} {'new us':>6s} {'range':>13s} {'new/old':>7s}")
    elif args.runs or args.spread:
        print(f"{'shape':14s} {'nodes':>6s}  {'path':48s} {'old':>6s} {'new':>6s}  {'old runs':23s} {'new runs':23s}"
              + ("  old range  new range" if args.spread else ""))
    else:
        print(f"{'shape':14s} {'nodes':>6s}  {'path':48s} {'old':>6s} {'new':>6s}")
    spreads = {"old": [], "new": []}
    for (shape, nodes, path), sides in sorted(ratios.items()):
        old, new = (f"{statistics.median(sides[s]):6.3f}" if sides[s] else f"{'-':>6s}" for s in ("old", "new"))
        old_runs, new_runs = (" ".join(f"{r:.3f}" for r in sides[s]) for s in ("old", "new"))  # --runs, --spread
        if args.absolute:
            spread = (f"{min(sides[s]):6.3f}-{max(sides[s]):6.3f}" if sides[s] else f"{'-':>13s}" for s in ("old", "new"))
            both = sides["old"] and sides["new"]
            change = f"{statistics.median(sides['new']) / statistics.median(sides['old']):7.3f}" if both else f"{'-':>7s}"
            old_range, new_range = spread
            print(f"{shape:14s} {nodes:6d}  {path:48s} {old} {old_range} {new} {new_range} {change}")
        elif args.spread:
            ranges = [max(sides[s]) - min(sides[s]) if sides[s] else None for s in ("old", "new")]
            for s, r in zip(("old", "new"), ranges):
                if r is not None and any(v != 1.0 for v in sides[s]):
                    spreads[s].append(r / statistics.median(sides[s]))
            shown = (f"{r:9.3f}" if r is not None else f"{'-':>9s}" for r in ranges)
            print(f"{shape:14s} {nodes:6d}  {path:48s} {old} {new}  {old_runs:23s} {new_runs:23s}  " + "  ".join(shown))
        elif args.runs:
            split = ""
            if sides["old"] and sides["new"]:
                split = ("split" if max(sides["new"]) < min(sides["old"])
                         else "split up" if min(sides["new"]) > max(sides["old"]) else "")
            print(f"{shape:14s} {nodes:6d}  {path:48s} {old} {new}  {old_runs:23s} {new_runs:23s} {split}".rstrip())
        else:
            print(f"{shape:14s} {nodes:6d}  {path:48s} {old} {new}")
    if args.spread:
        for s in ("old", "new"):
            r = spreads[s]
            if r:
                print(f"{s} runs' range / median over {len(r)} cells: mean {statistics.mean(r):.3f}, "
                      f"median {statistics.median(r):.3f}, largest {max(r):.3f}")


if __name__ == "__main__":
    main()
