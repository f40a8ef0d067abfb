#!/usr/bin/env bash
# Probe (not kept): the compiled program's build with and without its per-node records
# (exp-tree: the tree with CGRAPH_EXP_NORECORDS computing every step's values into one scratch),
# runtime_bench --only build in the order with, without, without, with, with, without.
set -uo pipefail
D=$PWD/.device-deps/include
cmake -S exp-tree -B /tmp/exp -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCGRAPH_BUILD_TESTS=OFF \
  -DCGRAPH_BUILD_EXAMPLES=OFF -DCGRAPH_INSTALL=OFF -DCGRAPH_EXTRA_INCLUDE_DIRS=$D > /tmp/cfg-exp.log 2>&1
cmake --build /tmp/exp -j16 --target runtime_bench > /tmp/build-exp.log 2>&1 || { tail -20 /tmp/build-exp.log; exit 1; }
n=0
for v in old new new old old new; do
  n=$((n+1))
  if [ $v = new ]; then CGRAPH_EXP_NORECORDS=1 /tmp/exp/bench/runtime_bench --only build --repeats 7 --csv "$OUT/build-$n-$v.csv" > /dev/null 2>&1
  else /tmp/exp/bench/runtime_bench --only build --repeats 7 --csv "$OUT/build-$n-$v.csv" > /dev/null 2>&1; fi
  echo "run $n $v done"
done
