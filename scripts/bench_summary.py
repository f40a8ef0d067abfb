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
rounds than the run's most (a race that `--cell-seconds` stopped early) are listed last.
"""
import argparse
import collections
import csv
import re
import statistics


def cells(name, min_nodes):
    out = collections.defaultdict(dict)  # (measure, path) -> {(shape, nodes): ratio}
    lower = collections.defaultdict(dict)  # the same cells' lower quartiles, where the CSV has them
    rounds = {}  # (measure, shape, nodes) -> the fewest rounds of its rows, where the CSV has them
    with open(name) as f:
        for row in csv.DictReader(f):
            if row.get("rounds"):
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
    args = parser.parse_args()
    limits = {}
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
    for i, (_, _, rounds) in enumerate(read):
        most = max(rounds.values(), default=0)
        fewer = sorted((key, n) for key, n in rounds.items() if n < most)
        if fewer:
            print(f"run {i + 1}: fewer rounds than {most} (--cell-seconds): " +
                  ", ".join(f"{m} {shape} {nodes} ({n})" for (m, shape, nodes), n in fewer))


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
