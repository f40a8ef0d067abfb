#!/usr/bin/env bash
# The GPU half of the checks, for the device machine (see ../shared/DEVICE.md): builds with the
# carried range-v3 headers, runs every test (GPU ones included), the example programs, and
# compute-sanitizer over the GPU tests. Logs go to $OUT when set. Options (environment):
#   CGRAPH_SANITIZE=0            no sanitizers
#   CGRAPH_SANITIZE_CASES=LIST   the sanitizers run these doctest cases only (-tc, e.g. 'runtime.*,capture.*')
#   CGRAPH_SANITIZE_TIMEOUT=S    each sanitizer run is stopped after S seconds (racecheck once hung: run 29)
# The device machine has no range-v3: carry its headers, made here once with
#   bash scripts/device_deps.sh
# (`std/` too: range-v3 0.12's iterator headers include std/detail/associated_types.hpp).
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/device_build.sh
out=${OUT:-/tmp/cgraph-device}
mkdir -p "$out"
build=${CGRAPH_BUILD_DIR:-/tmp/cgraph-device-build}
device_configure "$build" RelWithDebInfo "$out/configure.log" || exit 1
device_build "$build" "$out/build.log" || exit 1
echo "== CPU tests"
ctest --test-dir "$build" -LE gpu -j "$(nproc)" --output-on-failure > "$out/ctest-cpu.log" 2>&1
# The summary line and each failed test (tail alone showed a failure's name but not the count:
# run 63's proof printed one failure without "tests passed").
grep -E "% tests passed|^\s+[0-9]+ - .*\((Failed|Timeout|SEGFAULT|Not Run|Subprocess aborted)" "$out/ctest-cpu.log" | tail -12
echo "== GPU tests"
ctest --test-dir "$build" -L gpu --output-on-failure -V > "$out/ctest-gpu.log" 2>&1
grep -E "device:|test cases|assertions|Status|tests passed|Failed|ERROR" "$out/ctest-gpu.log" | tail -12
echo "== example programs"
for p in "$build"/examples/example_*; do "$p" 2>&1; done | tee "$out/examples.log"
# The examples use registered kernels only, which cgraph checks without a failing CUDA call, so
# compute-sanitizer's API-error report (on by default, unlike scripts/sanitize.sh's runs) finds
# nothing of cgraph's: what a user running their own program under it sees (docs/runtime.md).
# data_parallel's NCCL makes failing calls of its own in ncclCommInitAll (run 86).
echo "== example programs under compute-sanitizer, API errors reported"
for p in "$build"/examples/example_*; do
  compute-sanitizer --tool memcheck --error-exitcode 9 "$p" > "$out/api-errors-${p##*/}.log" 2>&1
  echo "${p##*/}: exit $?, $(grep -E "ERROR SUMMARY" "$out/api-errors-${p##*/}.log")"
done
if [ "${CGRAPH_SANITIZE:-1}" = 1 ]; then
  cases=()
  [ -n "${CGRAPH_SANITIZE_CASES:-}" ] && cases=(-tc="$CGRAPH_SANITIZE_CASES")
  limit=()
  [ -n "${CGRAPH_SANITIZE_TIMEOUT:-}" ] && limit=(timeout "$CGRAPH_SANITIZE_TIMEOUT")
  for tool in memcheck racecheck synccheck; do
    echo "== compute-sanitizer --tool $tool"
    # Timed, so that a run stopped at its limit can be told from the same tool's time in a run
    # before (run 48's racecheck stopped at 150 s; scripts/sanitize_cases.sh finds the case).
    started=$SECONDS
    # scripts/sanitize.sh: the tools' flags, and the cases racecheck skips.
    "${limit[@]}" bash scripts/sanitize.sh "$tool" "$build/tests/cgraph_gpu_tests" "${cases[@]}" > "$out/sanitizer-$tool.log" 2>&1
    echo "exit $? after $(( SECONDS - started )) s"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test cases" "$out/sanitizer-$tool.log" | tail -3
  done
fi
