#!/usr/bin/env bash
# The GPU proof of a change, in one device call (docs/perf/run30): the whole suite
# (scripts/device_check.sh without its sanitizers), then memcheck, synccheck and racecheck over
# the cases that build, capture, update and run concurrently, each under a time limit (racecheck
# once sat in one case until the call's time ran out: run 29), and racecheck five more times on
# that case. Logs go to $OUT; the build to /tmp/dc. Carry .device-deps.
set -uo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
CGRAPH_SANITIZE=0 CGRAPH_BUILD_DIR=/tmp/dc bash scripts/device_check.sh > "$OUT/device_check.txt" 2>&1
echo "device_check exit $? at $(( $(date +%s) - start )) s"
grep -E "device:|test cases:|assertions:|Status:|tests passed|Failed" "$OUT/device_check.txt" | tail -8
grep -c "verified against the CPU reference" "$OUT/device_check.txt"
cases='runtime.*,capture.*,concurrency.*,generated.*'
for tool in memcheck synccheck racecheck; do
  timeout 150 compute-sanitizer --tool $tool --report-api-errors no --error-exitcode 9 /tmp/dc/tests/cgraph_gpu_tests -tc="$cases" \
    > "$OUT/sanitizer-$tool.txt" 2>&1
  echo "$tool exit $? at $(( $(date +%s) - start )) s"
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test cases:" "$OUT/sanitizer-$tool.txt" | tail -2
done
for i in 1 2 3 4 5; do
  timeout 60 compute-sanitizer --tool racecheck --report-api-errors no --error-exitcode 9 /tmp/dc/tests/cgraph_gpu_tests \
    -tc='capture.isomorphic_to_explicit_with_the_same_results' > "$OUT/racecheck-nested-$i.txt" 2>&1
  echo "racecheck nested #$i exit $? at $(( $(date +%s) - start )) s"
  grep -E "RACECHECK SUMMARY|test cases:" "$OUT/racecheck-nested-$i.txt" | tail -2
done
