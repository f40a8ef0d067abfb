#!/usr/bin/env bash
# An A/B of runtime_bench's builds in one device call: old-tree (the code before, unpacked there
# with `git archive REV -- CMakeLists.txt cmake dsl compiler runtime include bench examples`)
# against the tree, `runtime_bench --only build --repeats 7` (or REPEATS) in the order old, new, new, old,
# old, new, each run's CSV to $OUT/NAME-RUN-old|new.csv, and their medians side by side to
# $OUT/NAME-summary.txt (scripts/ab_summary.py; the first measure of ONLY).
#   [ONLY=MEASURE,…] [REPEATS=N] [SHAPES=SHAPE,…] [CPU=N] ab_runtime_bench.sh NAME [generated]
#   (generated: with the generated-C++ columns; ONLY: the measures to run, `build` unless given;
#   REPEATS: rounds of each run, 7 unless given; SHAPES: runtime_bench's --shapes, all unless given;
#   CPU: runtime_bench's --cpu, the CPU its timed thread runs on, 5 unless given (CPU= runs
#   unpinned): pinned, one run's cells spread about a quarter less, 25 of 32 cells narrower in
#   the A/A of docs/performance.md, run 52; a runtime_bench older than run 50 ignores it)
#   PIN_AA=N: an A/A of pinning instead: no old-tree; "old" runs are the tree's runtime_bench
#   unpinned, "new" runs the same binary with --cpu N, so the spread of each side's runs
#   (ab_summary.py --spread) shows whether pinning the timed thread narrows the noise
#   LAYOUT_AA="FLAGS": an A/A of code layout instead: no old-tree; "old" is the tree built as
#   always, "new" the same tree built with FLAGS added to CMAKE_CXX_FLAGS and, for nvcc's host
#   compiler, CMAKE_CUDA_FLAGS (for example
#   "-falign-functions=64 -falign-loops=64"), so each cell's old-to-new shift is what moving the
#   same code in memory does to it: the yardstick for an A/B's shifts of a few percent (run 66
#   read the explicit builds 2-4% slower on a change that kept their host instructions, and
#   untouched paths moved too)
#   ORDER: the runs' order, "old new new old old new" unless given
#   PACK=1: the runs' CSVs go into $OUT/NAME-runs.tar.gz, beside the summary (the device machine
#   returns at most 8 files from $OUT: an ORDER of 8 runs and the summary are 9)
set -uo pipefail
name=$1
only=${ONLY:-build}
repeats=${REPEATS:-7}
pin=${CPU-5}  # CPU= (empty) runs unpinned
generated=OFF; [ "${2:-}" = generated ] && generated=ON
source scripts/device_build.sh
# cfg SOURCE BUILD NAME [CMAKE_ARG…]: the old side's source is old-tree (the tree in an A/A).
cfg() { CGRAPH_SOURCE_DIR=$1 device_configure "$2" Release "/tmp/cfg-$3.log" -DCGRAPH_BUILD_TESTS=OFF \
  -DCGRAPH_BUILD_EXAMPLES=OFF -DCGRAPH_INSTALL=OFF -DCGRAPH_BENCH_GENERATED=$generated "${@:4}"; }
start=$(date +%s)
if [ -n "${PIN_AA:-}" ]; then
  cfg . /tmp/new new && CGRAPH_BUILD_JOBS=16 device_build /tmp/new /tmp/build-new.log runtime_bench
  rm -rf /tmp/old && ln -s /tmp/new /tmp/old  # the same binary on both sides (an earlier A/B's old build goes)
else
  if [ -n "${LAYOUT_AA:-}" ]; then
    # The .cu files' host code too (the generated-C++ columns' units, the kernels' launch
    # stubs), through nvcc's host compiler.
    cfg . /tmp/old old & cfg . /tmp/new new "-DCMAKE_CXX_FLAGS=$LAYOUT_AA" "-DCMAKE_CUDA_FLAGS=-Xcompiler=${LAYOUT_AA// /,}" & wait
  else
    cfg old-tree /tmp/old old & cfg . /tmp/new new & wait
  fi
  CGRAPH_BUILD_JOBS=8 device_build /tmp/old /tmp/build-old.log runtime_bench &
  CGRAPH_BUILD_JOBS=8 device_build /tmp/new /tmp/build-new.log runtime_bench
  wait
fi
echo "built in $(( $(date +%s) - start )) s"  # device_build printed any build's errors
n=0
for v in ${ORDER:-old new new old old new}; do
  cpu=$pin; [ -n "${PIN_AA:-}" ] && { cpu=; [ "$v" = new ] && cpu=$PIN_AA; }
  n=$((n+1)); /tmp/$v/bench/runtime_bench --only "$only" --repeats "$repeats" ${SHAPES:+--shapes "$SHAPES"} ${cpu:+--cpu "$cpu"} --csv "$OUT/$name-$n-$v.csv" > /dev/null 2>&1
  echo "runtime_bench $name $n $v done at $(( $(date +%s) - start )) s"
done
view=--runs sides="old = old-tree, new = the tree${pin:+; the timed thread on CPU $pin}"
[ -n "${PIN_AA:-}" ] && view=--spread sides="A/A: old = the tree unpinned, new = the same binary with --cpu $PIN_AA"
[ -n "${LAYOUT_AA:-}" ] && sides="A/A of layout: old = the tree, new = the tree with $LAYOUT_AA in its C++ and nvcc host flags${pin:+; the timed thread on CPU $pin}"
python3 scripts/ab_summary.py "$OUT"/"$name"-*.csv $view --measure "${only%%,*}" \
  --title "A/B of runtime_bench --only $only --repeats $repeats ($sides); runs ${ORDER:-old new new old old new}; medians of each side's runs' ratios to the hand-written path" \
  > "$OUT/$name-summary.txt" && cat "$OUT/$name-summary.txt"
if [ -n "${PACK:-}" ]; then
  (cd "$OUT" && tar czf "$name-runs.tar.gz" "$name"-[0-9]*-old.csv "$name"-[0-9]*-new.csv && rm -f "$name"-[0-9]*-old.csv "$name"-[0-9]*-new.csv)
fi
