#!/usr/bin/env bash
# Some GPU test cases, quickly: builds only the GPU test program (about 70 s on the H200
# machine's 16 cores, run 55) and runs the doctest cases CASES names (-tc patterns, commas between
# them) under a time limit, for a change whose own cases must run when too little device time is
# left for scripts/gpu_proof.sh (about 400 s). Not a proof of the change: the whole suite, the
# examples and the sanitizers are (gpu_proof.sh). The fault sweeps (`faults.*`) take minutes
# each: name them only with the time for them. Carry .device-deps.
#   CASES='generated.the_table_form*' [LIMIT=120] OUT=$OUT bash scripts/gpu_cases.sh
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/device_build.sh
: "${CASES:?CASES: the doctest -tc patterns to run}"
out=${OUT:-/tmp/cgraph-gpu-cases}
mkdir -p "$out"
build=${CGRAPH_BUILD_DIR:-/tmp/cgraph-gpu-cases-build}
start=$(date +%s)
device_configure "$build" RelWithDebInfo "$out/configure.log" || exit 1
device_build "$build" "$out/build.log" cgraph_gpu_tests || exit 1
echo "built in $(( $(date +%s) - start )) s"
timeout "${LIMIT:-120}" "$build/tests/cgraph_gpu_tests" -tc="$CASES" > "$out/cases.log" 2>&1
status=$?
[ "$status" = 124 ] && echo "stopped at the ${LIMIT:-120} s limit"
grep -E "device:|ERROR|test cases:|assertions:|Status:" "$out/cases.log" | tail -12
echo "exit $status at $(( $(date +%s) - start )) s"
exit "$status"
