#!/usr/bin/env bash
# The GPU proof of a change, in one device call (docs/perf/run30): scripts/device_check.sh (the
# whole suite, the examples, then memcheck, racecheck and synccheck over the cases that build,
# capture, update and run concurrently, each under a time limit), and racecheck five more times
# on the case that once hung under it (run 29). Logs go to $OUT (in logs.tar.gz, beside
# device_check.txt); the build to /tmp/dc. Carry
# .device-deps.
set -uo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
CGRAPH_BUILD_DIR=/tmp/dc CGRAPH_SANITIZE_CASES='runtime.*,capture.*,concurrency.*,generated.*' CGRAPH_SANITIZE_TIMEOUT=150 \
  OUT="$OUT" bash scripts/device_check.sh > "$OUT/device_check.txt" 2>&1
echo "device_check exit $? at $(( $(date +%s) - start )) s"
grep -E "device:|test cases:|assertions:|Status:|tests passed|Failed|^== compute|^exit|ERROR SUMMARY|RACECHECK SUMMARY" \
  "$OUT/device_check.txt" | tail -20
grep -c "verified against the CPU reference" "$OUT/device_check.txt"
for i in 1 2 3 4 5; do
  timeout 60 bash scripts/sanitize.sh racecheck /tmp/dc/tests/cgraph_gpu_tests \
    -tc='capture.isomorphic_to_explicit_with_the_same_results' > "$OUT/racecheck-nested-$i.txt" 2>&1
  echo "racecheck nested #$i exit $? at $(( $(date +%s) - start )) s"
  grep -E "RACECHECK SUMMARY|test cases:" "$OUT/racecheck-nested-$i.txt" | tail -2
done
# A device call brings back only a few files from $OUT (run 32 lost the sanitizer logs that
# way): the logs go back as one archive, device_check.txt beside it.
shopt -s nullglob
logs=("$OUT"/*.log "$OUT"/racecheck-nested-*.txt)
[ ${#logs[@]} -gt 0 ] && tar -czf "$OUT/logs.tar.gz" -C "$OUT" --remove-files "${logs[@]##*/}" && echo "logs in logs.tar.gz"
