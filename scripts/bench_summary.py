#!/usr/bin/env python3
"""The figures docs/performance.md quotes from runtime_bench CSVs: for every measured path, the
median over its cells (shapes x sizes) of the ratio to the hand-written path of the same round,
how many cells lie within a limit, and the worst cell. Several CSVs (runs of one build) are
summarised side by side.

    python3 scripts/bench_summary.py run1.csv [run2.csv …] [--limit PATH=RATIO …] [--min-nodes N]

Paths are named as in the CSV, without the update path in parentheses; a --limit gives the
target the cells are counted against (default 1.10). A hand-written path is summarised only
where it is measured against another one (a diagnostic row, such as the setters on cgraph's
exec): the references themselves read 1.00 in every cell.

Where the CSV has each cell's quartiles (runtime_bench since run 48), a run's figure also
counts the cells whose lower quartile is within the limit ("q1 ok"): a cell whose median misses
but whose rounds' lower quarter lies within is a miss by less than the cell's own spread.

Last, a run's own spread: at 1 000 nodes and more (cgraphc's table threshold) the chain's and
the fork-join's "generated C++, explicit" build is the table form, the same code as the
"table form" column, timed in the same rounds. How far the two columns' cells differ is how
far one cell can move by chance in that run (docs/performance.md, run 45).

Where a CSV has each figure's rounds (runtime_bench since run 52), the cells timed in fewer
rounds than their measure's most (a race that `--cell-seconds` stopped early) are listed last.

`--targets` counts each path against its issue's target (ISSUE_TARGETS: issue 13's for the
builds, updates, instantiate, launch and device loops, issue 17's for text -> graph) instead of
1.10, a --limit still overriding one, and lists every cell over its target after the table:
the table each run's section of docs/performance.md gives, read from the CSV rather than by eye.
"""
import argparse
import collections
import csv
import re
import statistics


# MEASURE/PATH (as in the CSV, without the update path in parentheses) -> the issue's target.
ISSUE_TARGETS = {
    "build/cgraph compiled program, explicit": 1.10,  # issue 13
    "build/cgraph compiled program, capture": 1.10,
    "build/cgraph generated C++, explicit": 1.05,
    "build/cgraph generated C++, capture": 1.05,
    "build/cgraph generated C++, table form": 1.05,
    "update one/cgraph parameter handle": 1.10,
    "update one/cgraph update": 1.3,
    "update all/cgraph update": 1.10,
    "instantiate/cgraph": 1.02,
    "launch/cgraph": 1.02,
    "device loop/cgraph repeat": 1.02,
    "device loop/cgraph while on a device flag": 1.02,
    "build/cgraph text -> graph, explicit": 1.25,  # issue 17
    "build/cgraph text -> graph, capture": 1.25,
}


def cells(name, min_nodes):
    out = collections.defaultdict(dict)  # (measure, path) -> {(shape, nodes): ratio}
    lower = collections.defaultdict(dict)  # the same cells' lower quartiles, where the CSV has them
    rounds = {}  # (measure, shape, nodes) -> the fewest rounds of its measured rows, where the CSV has them
    with open(name) as f:
        for row in csv.DictReader(f):
            reference = row["path"].startswith("hand") and row["ratio_to_hand"] == "1.000" and \
                row.get("ratio_q1", "1.000") == "1.000" and row.get("ratio_q3", "1.000") == "1.000"
            if row.get("rounds") and not reference:  # a reference racing alone is no target's cell
                key = (row["measure"], row["shape"], int(row["nodes"]))
                n = int(row["rounds"])
                rounds[key] = min(rounds.get(key, n), n)
            if int(row["nodes"]) < min_nodes:
                continue
            path = re.sub(r" \(.*\)$", "", row["path"])
            cell = (row["shape"], int(row["nodes"]))
            out[(row["measure"], path)][cell] = float(row["ratio_to_hand"])
            if row.get("ratio_q1"):
                lower[(row["measure"], path)][cell] = float(row["ratio_q1"])
    # A hand-written reference is 1.00 against itself in every cell: left out.
    kept = {key: ratios for key, ratios in out.items()
            if not (key[1].startswith("hand") and all(r == 1.0 for r in ratios.values()))}
    return kept, lower, rounds


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("csv", nargs="+")
    parser.add_argument("--limit", action="append", default=[], help="MEASURE/PATH=RATIO")
    parser.add_argument("--min-nodes", type=int, default=0)
    parser.add_argument("--targets", action="store_true", help="count each path against its issue's target")
    args = parser.parse_args()
    limits = dict(ISSUE_TARGETS) if args.targets else {}
    for item in args.limit:
        key, _, ratio = item.rpartition("=")
        try:
            limits[key] = float(ratio)
        except ValueError:
            parser.error(f"--limit takes MEASURE/PATH=RATIO, not '{item}'")
    try:
        read = [cells(name, args.min_nodes) for name in args.csv]
    except (OSError, KeyError, ValueError) as e:
        raise SystemExit(f"bench_summary: cannot read a runtime_bench CSV: {e}")
    runs = [run for run, _, _ in read]
    lowers = [lower for _, lower, _ in read]
    keys = sorted({k for run in runs for k in run}, key=lambda k: (k[0] != "build", k))
    width = 33 if not any(lowers) else 44  # "1.23 (12/12 <= 1.10, max 1.55, q1 ok 12/12)" and room
    print(f"{'measure':<18} {'path':<46} " + "  ".join(f"{'run ' + str(i + 1):<{width}}" for i in range(len(runs))).rstrip())
    for key in keys:
        limit = limits.get(f"{key[0]}/{key[1]}", 1.10)
        figures = []
        for run, lower in zip(runs, lowers):
            ratios = run.get(key, {})
            if not ratios:
                figures.append(f"{'-':<{width}}")
                continue
            worst = max(ratios, key=ratios.get)
            within = sum(r <= limit for r in ratios.values())
            q1 = lower.get(key, {})
            reach = f", q1 ok {sum(q <= limit for q in q1.values()):2d}/{len(q1):2d}" if q1 else ""
            figures.append(f"{statistics.median(ratios.values()):.2f} ({within:2d}/{len(ratios):2d} <= {limit:.2f}, "
                           f"max {ratios[worst]:.2f}{reach})".ljust(width))
        print(f"{key[0]:<18} {key[1]:<46} " + "  ".join(figures).rstrip())
    spreads = [same_code_spread(run) for run in runs]
    if any(spreads):
        print(f"{'same code, 2 cols':<18} {'generated explicit vs table form, >= 1000 nodes':<46} " +
              "  ".join((f"differ by up to {s[0]:.2f} ({s[1]} cells)" if s else "-").ljust(width) for s in spreads).rstrip())
    if args.targets:
        for i, (run, lower) in enumerate(zip(runs, lowers)):
            lines = []  # a path all of whose cells miss is one line (text -> graph), else a line a cell
            for key in keys:
                limit = limits.get(f"{key[0]}/{key[1]}")
                ratios = run.get(key, {})
                over = [(cell, r) for cell, r in sorted(ratios.items()) if limit is not None and r > limit]
                if over and len(over) == len(ratios) > 1:
                    lines.append(f"  {key[0]} / {key[1]}: all {len(over)} cells over {limit:.2f} "
                                 f"(median {statistics.median(ratios.values()):.3f})")
                    continue
                for (shape, nodes), ratio in over:
                    q1 = lower.get(key, {}).get((shape, nodes))
                    lines.append(f"  {key[0]} / {key[1]}, {shape} {nodes}: {ratio:.3f} > {limit:.2f}" +
                                 (f" (lower quartile {q1:.3f})" if q1 is not None else ""))
            print(f"run {i + 1}: " + ("every cell within its target" if not lines else "over their target:"))
            for line in lines:
                print(line)
    for i, (_, _, rounds) in enumerate(read):
        most = collections.defaultdict(int)  # a measure's most rounds (runtime_bench's --repeats-of)
        for (m, _, _), n in rounds.items():
            most[m] = max(most[m], n)
        fewer = sorted((key, n) for key, n in rounds.items() if n < most[key[0]])
        if fewer:
            print(f"run {i + 1}: fewer rounds than the measure's most (--cell-seconds): " +
                  ", ".join(f"{m} {shape} {nodes} ({n} of {most[m]})" for (m, shape, nodes), n in fewer))


TABLE_THRESHOLD = 1000  # cgraphc's default (compiler/emit_cpp.hpp, default_table_threshold)


def same_code_spread(run):
    """The largest difference between the two build columns that run the same code, and the
    number of cells compared; None where the run has no such cells."""
    explicit = run.get(("build", "cgraph generated C++, explicit"), {})
    table = run.get(("build", "cgraph generated C++, table form"), {})
    pairs = [(explicit[c], table[c]) for c in explicit
             if c in table and c[1] >= TABLE_THRESHOLD and c[0] in ("chain", "fork-join")]
    return (max(abs(a - b) for a, b in pairs), len(pairs)) if pairs else None


if __name__ == "__main__":
    main()
