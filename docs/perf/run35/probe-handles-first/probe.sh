#!/usr/bin/env bash
# Probe (run 35): hand-written conditionals with their handles made first, against as written.
set -uo pipefail
start=$(date +%s)
cmake -S . -B /tmp/p -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCGRAPH_BUILD_TESTS=OFF \
  -DCGRAPH_BUILD_EXAMPLES=OFF -DCGRAPH_INSTALL=OFF -DCGRAPH_BENCH_GENERATED=OFF \
  -DCGRAPH_EXTRA_INCLUDE_DIRS=$PWD/.device-deps/include > /tmp/cfg.log 2>&1
cmake --build /tmp/p -j16 --target runtime_bench > /tmp/build.log 2>&1 || { grep -E "error|FAILED" /tmp/build.log | head; exit 1; }
echo "built in $(( $(date +%s) - start )) s"
n=0
for v in plain first first plain plain first; do
  n=$((n+1))
  if [ $v = first ]; then export CGRAPH_BENCH_HANDLES_FIRST=1; else unset CGRAPH_BENCH_HANDLES_FIRST; fi
  /tmp/p/bench/runtime_bench --only build --repeats 7 --csv "$OUT/probe-$n-$v.csv" > /dev/null 2>&1
  echo "run $n $v done at $(( $(date +%s) - start )) s"
done
