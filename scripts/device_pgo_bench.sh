#!/usr/bin/env bash
# The front end built plainly and profile-guided (scripts/pgo_build.sh), side by side on the
# device machine's host: frontend_bench from both builds in alternating rounds, `cgraphc check`
# of frontend_bench's 200 000-node file from both, and runtime_bench's build race (text ->
# graph against the hand-written builds) from both. Two stages, for two calls of the device's
# 600 s: STAGE=build makes both build folders (kept between calls: they are ignored paths
# under build/), STAGE=run measures. Results go to $OUT.
# CXX=clang++ (any Clang with its llvm-profdata) builds both with Clang instead of the default
# compiler, the front end only: no runtime_bench, whose CUDA code would need its host compiler
# matched.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/device_build.sh
out=${OUT:-/tmp/cgraph-pgo-bench}
mkdir -p "$out"
args=(-DCGRAPH_BUILD_TESTS=OFF -DCGRAPH_BUILD_EXAMPLES=OFF)
if [[ "${CXX:-}" == *clang* ]]; then
  suffix=-clang
  targets=(frontend_bench cgraphc)
  args+=(-DCGRAPH_WITH_RUNTIME=OFF)
else
  suffix=
  targets=(frontend_bench runtime_bench cgraphc)
fi
plain=build/device-plain$suffix pgo=build/device-pgo$suffix
jobs=$(( $(nproc) / 2 ))
case "${STAGE:?STAGE=build or STAGE=run}" in
  build)
    # Both at once, each on half the cores.
    ( device_configure "$plain" Release "$out/plain-configure.log" -DCGRAPH_PGO=OFF "${args[@]}" &&
      CGRAPH_BUILD_JOBS=$jobs device_build "$plain" "$out/plain-build.log" "${targets[@]}" ) &
    ( CGRAPH_BUILD_JOBS=$jobs CGRAPH_CMAKE_ARGS="${device_cmake_args[*]} ${args[*]}" bash scripts/pgo_build.sh "$pgo" "${targets[@]}" ) > "$out/pgo-build.log" 2>&1 &
    wait
    tail -n 2 "$out/plain-build.log" "$out/pgo-build.log"
    ;;
  run)
    rounds=${ROUNDS:-3}
    for ((r = 1; r <= rounds; ++r)); do
      for b in "$plain" "$pgo"; do
        echo "== $(basename "$b"), round $r" >> "$out/frontend_bench.txt"
        "$b/bench/frontend_bench" >> "$out/frontend_bench.txt" 2>&1
      done
    done
    "$plain/bench/frontend_bench" --nodes 200000 --write "$out/mixed200k.cgraph" > /dev/null 2>&1
    for ((r = 1; r <= 5; ++r)); do
      for b in "$plain" "$pgo"; do
        start=$EPOCHREALTIME
        "$b/cgraphc" check "$out/mixed200k.cgraph" || echo "cgraphc check failed"
        awk -v b="$(basename "$b")" -v s="$start" -v e="$EPOCHREALTIME" 'BEGIN { printf "%s %.3f s\n", b, e - s }' >> "$out/cgraphc_check.txt"
      done
    done
    rm -f "$out/mixed200k.cgraph"
    for b in "$plain" "$pgo"; do
      [ -x "$b/bench/runtime_bench" ] || continue
      "$b/bench/runtime_bench" --only build --csv "$out/runtime_bench-$(basename "$b").csv" --cell-seconds "${CELL_SECONDS:-15}" \
        --cpu "${CPU:-5}" ${CGRAPH_BENCH_ARGS:-} > "$out/runtime_bench-$(basename "$b").txt" 2>&1 || echo "runtime_bench failed"
    done
    cat "$out/frontend_bench.txt" "$out/cgraphc_check.txt"
    grep -E "text|hand-written explicit|hand-written capture" "$out"/runtime_bench-*.txt 2>/dev/null | grep -E " (1000|10000) " 
    ;;
esac
