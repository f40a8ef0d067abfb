#!/usr/bin/env bash
# A/B of the compiled program's build (old-tree: the code before, the tree: the new code):
# runtime_bench --only build, in the order old, new, new, old, old, new, in one device call.
set -uo pipefail
D=$PWD/.device-deps/include
cfg() { cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCGRAPH_BUILD_TESTS=OFF \
  -DCGRAPH_BUILD_EXAMPLES=OFF -DCGRAPH_INSTALL=OFF -DCGRAPH_BENCH_GENERATED=OFF \
  -DCGRAPH_EXTRA_INCLUDE_DIRS=$D > "/tmp/cfg-$3.log" 2>&1; }
start=$(date +%s)
cfg old-tree /tmp/old old & cfg . /tmp/new new & wait
cmake --build /tmp/old -j8 --target runtime_bench > /tmp/build-old.log 2>&1 &
cmake --build /tmp/new -j8 --target runtime_bench > /tmp/build-new.log 2>&1
wait
echo "built in $(( $(date +%s) - start )) s"; grep -E "error:|FAILED" /tmp/build-*.log | head
n=0
for v in old new new old old new; do
  n=$((n+1)); /tmp/$v/bench/runtime_bench --only build --repeats 7 --csv "$OUT/build-$n-$v.csv" > /dev/null 2>&1
  echo "runtime_bench build $n $v done at $(( $(date +%s) - start )) s"
done
