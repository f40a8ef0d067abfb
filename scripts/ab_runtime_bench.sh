#!/usr/bin/env bash
# An A/B of runtime_bench's builds in one device call: old-tree (the code before, unpacked there
# with `git archive REV -- CMakeLists.txt cmake dsl compiler runtime include bench examples`)
# against the tree, `runtime_bench --only build --repeats 7` (or REPEATS) in the order old, new, new, old,
# old, new, each run's CSV to $OUT/NAME-RUN-old|new.csv, and their medians side by side to
# $OUT/NAME-summary.txt (scripts/ab_summary.py; the first measure of ONLY).
#   [ONLY=MEASURE,…] [REPEATS=N] [SHAPES=SHAPE,…] [CPU=N] ab_runtime_bench.sh NAME [generated]
#   (generated: with the generated-C++ columns; ONLY: the measures to run, `build` unless given;
#   REPEATS: rounds of each run, 7 unless given; SHAPES: runtime_bench's --shapes, all unless given;
#   CPU: runtime_bench's --cpu, the CPU its timed thread runs on; a runtime_bench older than
#   run 50 ignores it, so give it only when old-tree has it too)
set -uo pipefail
name=$1
only=${ONLY:-build}
repeats=${REPEATS:-7}
generated=OFF; [ "${2:-}" = generated ] && generated=ON
D=$PWD/.device-deps/include
cfg() { cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCGRAPH_BUILD_TESTS=OFF \
  -DCGRAPH_BUILD_EXAMPLES=OFF -DCGRAPH_INSTALL=OFF -DCGRAPH_BENCH_GENERATED=$generated \
  -DCGRAPH_EXTRA_INCLUDE_DIRS=$D > "/tmp/cfg-$3.log" 2>&1; }
start=$(date +%s)
cfg old-tree /tmp/old old & cfg . /tmp/new new & wait
cmake --build /tmp/old -j8 --target runtime_bench > /tmp/build-old.log 2>&1 &
cmake --build /tmp/new -j8 --target runtime_bench > /tmp/build-new.log 2>&1
wait
echo "built in $(( $(date +%s) - start )) s"; grep -E "error:|FAILED" /tmp/build-*.log | head
n=0
for v in old new new old old new; do
  n=$((n+1)); /tmp/$v/bench/runtime_bench --only "$only" --repeats "$repeats" ${SHAPES:+--shapes "$SHAPES"} ${CPU:+--cpu "$CPU"} --csv "$OUT/$name-$n-$v.csv" > /dev/null 2>&1
  echo "runtime_bench $name $n $v done at $(( $(date +%s) - start )) s"
done
python3 scripts/ab_summary.py "$OUT"/"$name"-*.csv --runs --measure "${only%%,*}" \
  --title "A/B of runtime_bench --only $only --repeats $repeats (old = old-tree, new = the tree); runs old, new, new, old, old, new; medians of three runs' ratios to the hand-written path" \
  > "$OUT/$name-summary.txt" && cat "$OUT/$name-summary.txt"
