#!/usr/bin/env bash
# The benchmarks, for the device machine: a Release build, runtime_bench (cgraph against
# hand-written CUDA and generated C++), features_bench (PDL, graph memory), capture_join_bench (two
# ways to capture a fork-join), the cuda.core peer, and the plot, in one call. Results go to $OUT.
# runtime_bench stops a race after CELL_SECONDS (20 unless given; 0: never) once it has 3 rounds:
# the 10 000-node fork-join's instantiations take seconds a round (docs/performance.md, run 52).
# With `--min-rounds 15` in CGRAPH_BENCH_ARGS that fork-join alone ran 478 s and the whole call
# passed the device's 600 s limit (run 67): run that fork-join in a call of its own, with
# runtime_bench's `--shapes fork-join` (the cuda.core peer takes `--min-rounds`, not `--shapes`).
# runtime_bench's timed thread runs on CPU 5 (CPU, 5 unless given; CPU= unpinned): pinned, a
# run's cells spread about a quarter less (docs/performance.md, run 52).
# PGO=1 builds the front end profile-guided (scripts/pgo_build.sh): the text builds and
# frontend_bench then measure that build.
# PACK=1 leaves $OUT holding one bench.tar.gz of everything: the device machine returns at
# most 8 files from $OUT, and this writes about 17 (run 52 lost a whole benchmark's files so).
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/device_build.sh
out=${OUT:-/tmp/cgraph-bench}
mkdir -p "$out"
build=${CGRAPH_BUILD_DIR:-/tmp/cgraph-bench-build}
args=(-DCGRAPH_BUILD_TESTS=OFF -DCGRAPH_BENCH_GENERATED=ON -DCGRAPH_BENCH_TABLE_FORM=ON)
targets=(runtime_bench frontend_bench frontend_floor features_bench multi_gpu_bench table_form_bench capture_join_bench)
if [ -n "${PGO:-}" ]; then  # the front end profile-guided (scripts/pgo_build.sh; docs/performance.md, run 60)
  CGRAPH_CMAKE_ARGS="${device_cmake_args[*]} ${args[*]}" bash scripts/pgo_build.sh "$build" "${targets[@]}" > "$out/bench-build.log" 2>&1 ||
    { grep -E "error|FAILED" "$out/bench-build.log" | head; exit 1; }
else
  device_configure "$build" Release "$out/bench-configure.log" -DCGRAPH_PGO=OFF "${args[@]}" || exit 1
  device_build "$build" "$out/bench-build.log" "${targets[@]}" || exit 1
fi
"$build/bench/frontend_bench" > "$out/frontend_bench.txt" 2>&1
"$build/bench/frontend_floor" > "$out/frontend_floor.txt" 2>&1
PYTHONUNBUFFERED=1 python3 bench/cuda_core_peer.py --csv "$out/cuda_core_peer.csv" ${CGRAPH_BENCH_ARGS:-} > "$out/cuda_core_peer.txt" 2>&1 || echo "cuda.core peer failed: $(tail -3 "$out/cuda_core_peer.txt")"
pin=${CPU-5}  # CPU= (empty) runs unpinned
# Instantiate and launch have targets of 1.02 on a cell's median, inside their rounds' spread
# (±3-10%), and builds and one-node updates sit within a few hundredths of theirs: more rounds
# for them where a round is cheap (CELL_SECONDS still stops the dear ones), and 15 at least for the
# 10 000-node fork-join's instantiations, 5 s a round, and 61 for the 10 000-node builds (22
# rounds left two cells of the same code 0.06 apart; docs/performance.md, run 70). Instantiate
# 601: the 100 conditionals' instantiation spread 0.87-1.17 over 241 rounds and read 0.953, 1.045
# and 1.044 in three runs of the same code (run 72); its graphs are made again every 30 rounds,
# so 601 rounds see 20 placements in memory, not 8.
# ROUNDS=0 leaves every measure at --repeats.
rounds=(--repeats-of "build=241,instantiate=601,launch=241,update one=1001" --min-rounds-of "build=61,instantiate=15")
[ "${ROUNDS:-}" = 0 ] && rounds=()
"$build/bench/runtime_bench" --csv "$out/runtime_bench.csv" --cell-seconds "${CELL_SECONDS:-20}" ${pin:+--cpu "$pin"} "${rounds[@]}" ${CGRAPH_BENCH_ARGS:-} > "$out/runtime_bench.txt" 2>&1 || echo "runtime_bench failed"
"$build/bench/features_bench" --csv "$out/features_bench.csv" > "$out/features_bench.txt" 2>&1 || echo "features_bench failed"
"$build/bench/multi_gpu_bench" --csv "$out/multi_gpu_bench.csv" > "$out/multi_gpu_bench.txt" 2>&1 || echo "multi_gpu_bench failed"
"$build/bench/table_form_bench" > "$out/table_form_bench.txt" 2>&1 || echo "table_form_bench failed"
"$build/bench/capture_join_bench" > "$out/capture_join_bench.txt" 2>&1 || echo "capture_join_bench failed"
python3 bench/plot.py "$out/runtime_bench.csv" $( [ -s "$out/cuda_core_peer.csv" ] && echo "$out/cuda_core_peer.csv") -o "$out/performance.png" --ratios "$out/ratios.png" 2>&1 | tail -2
cat "$out/frontend_bench.txt" "$out/frontend_floor.txt" "$out/cuda_core_peer.txt"
cat "$out/runtime_bench.txt" "$out/features_bench.txt" "$out/multi_gpu_bench.txt" "$out/table_form_bench.txt" "$out/capture_join_bench.txt"
if [ -n "${PACK:-}" ]; then
  packed=$(mktemp) && tar czf "$packed" -C "$out" . && find "$out" -mindepth 1 -delete && mv "$packed" "$out/bench.tar.gz"
fi
