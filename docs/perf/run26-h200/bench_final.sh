#!/usr/bin/env bash
# The landed code's full benchmarks in one device call (run 26's last table).
set -uo pipefail
B=/tmp/rb; start=$(date +%s)
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCGRAPH_BUILD_TESTS=OFF -DCGRAPH_BUILD_EXAMPLES=OFF \
  -DCGRAPH_INSTALL=OFF -DCGRAPH_BENCH_GENERATED=ON -DCGRAPH_BENCH_TABLE_FORM=ON -DCGRAPH_EXTRA_INCLUDE_DIRS=$PWD/.device-deps/include > /tmp/cfg.log 2>&1
cmake --build $B -j16 --target runtime_bench table_form_bench > /tmp/build.log 2>&1 || { grep -E "error|FAILED" /tmp/build.log | head; exit 1; }
echo "built in $(( $(date +%s) - start )) s"
$B/bench/table_form_bench --rounds 15 > $OUT/table_form_bench.txt 2>&1; tail -1 $OUT/table_form_bench.txt
$B/bench/runtime_bench --repeats 7 --csv $OUT/runtime_bench.csv > $OUT/runtime_bench.txt 2>&1
echo "runtime_bench done at $(( $(date +%s) - start )) s"
python3 scripts/bench_summary.py $OUT/runtime_bench.csv
