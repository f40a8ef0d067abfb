set -u
D=$PWD/.device-deps/include
s=$(date +%s)
cmake -S . -B /tmp/ob -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCGRAPH_BUILD_TESTS=OFF -DCGRAPH_BUILD_EXAMPLES=OFF -DCGRAPH_INSTALL=OFF -DCGRAPH_BENCH_GENERATED=OFF -DCGRAPH_EXTRA_INCLUDE_DIRS=$D > $OUT/cfg.log 2>&1
cmake --build /tmp/ob -j16 --target runtime_bench > $OUT/build.log 2>&1 || { tail $OUT/build.log; exit 1; }
echo "built $(( $(date +%s) - s )) s"
B=/tmp/ob/bench/runtime_bench
timeout 100 $B --only build --shapes conditionals --max-nodes 1000 --repeats 9 --cpu 5 --csv $OUT/alone1.csv > $OUT/alone1.txt 2>&1; echo "alone1 $? $(( $(date +%s) - s )) s"
timeout 200 $B --shapes chain,fork-join,conditionals --max-nodes 1000 --repeats 9 --cpu 5 --cell-seconds 5 --csv $OUT/whole.csv > $OUT/whole.txt 2>&1; echo "whole $? $(( $(date +%s) - s )) s"
timeout 100 $B --only build --shapes conditionals --max-nodes 1000 --repeats 9 --cpu 5 --csv $OUT/alone2.csv > $OUT/alone2.txt 2>&1; echo "alone2 $? $(( $(date +%s) - s )) s"
for f in alone1 whole alone2; do echo "== $f"; grep -E "^conditionals.* build .*(compiled|hand-written capture  )" $OUT/$f.txt | cut -c1-120; done
# then, on the same machine (the second call):
# runtime_bench --only build --shapes conditionals --repeats 9 --cpu 5                   > alone-all-sizes.txt
# runtime_bench --shapes fork-join,conditionals --repeats 9 --cpu 5 --cell-seconds 4     > fork-join-then-conditionals.txt
