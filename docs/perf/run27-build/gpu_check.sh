#!/usr/bin/env bash
# Run 27's GPU proof in one device call: the whole suite (scripts/device_check.sh without the
# sanitizers), then memcheck and racecheck over the cases that build, capture, update and run
# concurrently: the paths this run changed.
set -uo pipefail
start=$(date +%s)
CGRAPH_SANITIZE=0 CGRAPH_BUILD_DIR=/tmp/dc bash scripts/device_check.sh > "$OUT/device_check.txt" 2>&1
echo "device_check exit $? at $(( $(date +%s) - start )) s"
grep -E "device:|test cases:|assertions:|Status:|tests passed|Failed" "$OUT/device_check.txt" | tail -8
grep -c "verified against the CPU reference" "$OUT/device_check.txt"
grep "verified" "$OUT/device_check.txt" | tail -1
cases='runtime.*,capture.*,concurrency.*,generated.*'
for tool in memcheck racecheck; do
  compute-sanitizer --tool $tool --report-api-errors no --error-exitcode 9 /tmp/dc/tests/cgraph_gpu_tests -tc="$cases" \
    > "$OUT/sanitizer-$tool.txt" 2>&1
  echo "$tool exit $? at $(( $(date +%s) - start )) s"
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test cases:" "$OUT/sanitizer-$tool.txt" | tail -2
done
