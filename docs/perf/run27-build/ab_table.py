#!/usr/bin/env python3
"""Prints an A/B's ratios to hand-written, per cell: python3 ab_table.py DIR [PATH-FILTER] [MEASURE].

DIR holds NAME-RUN-old|new.csv files (scripts/ab_runtime_bench.sh); MEASURE is `build` unless
given, and the files read are DIR/build-*.csv for it, DIR/*.csv for any other."""
import collections, csv, glob, statistics, sys

folder = sys.argv[1]
want = sys.argv[2] if len(sys.argv) > 2 else "compiled"
measure = sys.argv[3] if len(sys.argv) > 3 else "build"
cells = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(f"{folder}/build-*.csv" if measure == "build" else f"{folder}/*.csv")):
    code = f.rsplit("-", 1)[1][:-4]
    for r in csv.DictReader(open(f)):
        if r["measure"] == measure and want in r["path"]:
            cells[(r["shape"], int(r["nodes"]), r["path"].split(", ")[-1])][code].append(float(r["ratio_to_hand"]))
print(f"{'shape':13} {'nodes':>6} {'strategy':9} {'old':>20} {'new':>20} {'medians':>12}")
old_all, new_all = [], []
for k in sorted(cells):
    o, n = cells[k]["old"], cells[k]["new"]
    old_all += o; new_all += n
    print(f"{k[0]:13} {k[1]:>6} {k[2]:9} {' '.join(f'{x:.3f}' for x in o):>20} {' '.join(f'{x:.3f}' for x in n):>20}"
          f" {statistics.median(o):.2f}/{statistics.median(n):.2f}")
print(f"median of every cell and run: old {statistics.median(old_all):.3f}, new {statistics.median(new_all):.3f}")
