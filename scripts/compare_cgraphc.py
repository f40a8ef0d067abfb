#!/usr/bin/env python3
"""Runs two cgraphc binaries on the same inputs and reports where their output differs.

A front-end change that should not change behaviour (a faster parser, a smaller syntax tree) is
checked with it: `check`, `ir`, `dot` and `fmt` run on every input with both binaries, and
stdout, stderr and the exit code are compared byte for byte. `--emit` adds `emit-cpp` in both
modes (a build whose whole compiler changed: a profile-guided one, scripts/pgo_build.sh).

    python3 scripts/compare_cgraphc.py OLD_CGRAPHC NEW_CGRAPHC [--corpus-sample N] [--diff N] [--emit]

The inputs: every .cgraph file under examples/ and tests/golden/, then the fuzz regression
corpus (fuzz/corpus): the first 300 files in name order and N more drawn from the rest with a
fixed seed (default 1 500; 0 for none, -1 for the whole corpus, which takes hours). Each
command runs in its file's folder, as the golden tests run them. Exits 1 if anything differs.
"""

import argparse
import difflib
import os
import random
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

COMMANDS = (("check",), ("ir",), ("dot",), ("fmt",))
EMIT_COMMANDS = (("emit-cpp", "--mode", "explicit"), ("emit-cpp", "--mode", "capture"))
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def inputs(sample):
    files = sorted(
        os.path.join(d, f)
        for top in ("examples", os.path.join("tests", "golden"))
        for d, _, names in os.walk(os.path.join(ROOT, top))
        for f in names
        if f.endswith(".cgraph"))
    corpus_dir = os.path.join(ROOT, "fuzz", "corpus")
    corpus = sorted(os.listdir(corpus_dir)) if os.path.isdir(corpus_dir) else []
    chosen = corpus if sample < 0 else corpus[:300] + random.Random(17).sample(corpus[300:], min(sample, len(corpus[300:])))
    return files + [os.path.join(corpus_dir, f) for f in chosen]


def run(binary, command, path):
    try:
        r = subprocess.run([binary, command[0], os.path.basename(path), *command[1:]], cwd=os.path.dirname(path),
                           capture_output=True, timeout=60)
        return r.stdout + b"\n--- stderr ---\n" + r.stderr + b"\n--- exit %d ---\n" % r.returncode
    except subprocess.TimeoutExpired:
        return b"--- timed out ---\n"


def compare(old, new, path, commands):
    return [(c, path, a, b) for c in commands for a, b in [(run(old, c, path), run(new, c, path))] if a != b]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--corpus-sample", type=int, default=1500)
    ap.add_argument("--diff", type=int, default=5, help="print the first N differences as unified diffs")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--emit", action="store_true", help="compare emit-cpp's output in both modes too")
    args = ap.parse_args()
    commands = COMMANDS + (EMIT_COMMANDS if args.emit else ())
    old, new = os.path.abspath(args.old), os.path.abspath(args.new)
    files = inputs(args.corpus_sample)
    with ThreadPoolExecutor(args.jobs) as pool:
        differences = [d for found in pool.map(lambda p: compare(old, new, p, commands), files) for d in found]
    for k, (command, path, a, b) in enumerate(differences):
        print(f"differs: {' '.join(command)} {os.path.relpath(path, ROOT)}")
        if k < args.diff:
            sys.stdout.writelines(difflib.unified_diff(a.decode(errors="replace").splitlines(True),
                                                       b.decode(errors="replace").splitlines(True), "old", "new"))
    print(f"{len(files)} inputs, {len(files) * len(commands)} runs compared, {len(differences)} differ")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
