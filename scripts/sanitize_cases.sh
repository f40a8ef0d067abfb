#!/usr/bin/env bash
# One compute-sanitizer tool over the GPU tests one doctest case at a time, each under its own
# time limit, for the device machine: which case is slow or hangs under the tool, and how long
# each takes. A whole-suite run under a limit says neither when it is stopped (doctest prints a
# case only once it has a message; run 48's racecheck stopped at its 150 s limit with no
# sign of the case it was in). Builds the GPU test program alone (8 jobs: three builds at once,
# 18 jobs of the Spirit-heavy front end, stalled a machine in run 48).
#   [TOOL=racecheck] [CASES='capture.*'] [LIMIT=120] [CGRAPH_BUILD_DIR=/tmp/sc] sanitize_cases.sh
# Carry .device-deps. Per case: its name, the tool's exit status (124: stopped at the limit),
# its seconds and the tool's summary; each case's log goes to $OUT/TOOL-N.log.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/device_build.sh
tool=${TOOL:-racecheck}
cases=${CASES:-capture.*}
limit=${LIMIT:-120}
out=${OUT:-/tmp/cgraph-sanitize}
build=${CGRAPH_BUILD_DIR:-/tmp/sc}
mkdir -p "$out"
start=$(date +%s)
device_configure "$build" RelWithDebInfo "$out/configure.log" -DCGRAPH_BUILD_EXAMPLES=OFF || exit 1
CGRAPH_BUILD_JOBS=8 device_build "$build" "$out/build.log" cgraph_gpu_tests || exit 1
echo "built in $(( $(date +%s) - start )) s"
program="$build/tests/cgraph_gpu_tests"
skip=$(bash scripts/sanitize.sh --skip "$tool")  # scripts/sanitize.sh: the tools' flags and skips
mapfile -t names < <("$program" -ltc -tc="$cases" ${skip:+"$skip"} | sed -n '/^====/,/^====/p' | grep -v '^====')
status=0 n=0
for name in "${names[@]}"; do
  n=$((n + 1))
  t0=$(date +%s)
  timeout "$limit" bash scripts/sanitize.sh "$tool" "$program" -tc="$name" > "$out/$tool-$n.log" 2>&1
  code=$?
  [ "$code" != 0 ] && status=1
  summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$out/$tool-$n.log" | tail -1)
  echo "$name: exit $code, $(( $(date +%s) - t0 )) s, ${summary:-no summary}"
done
echo "${#names[@]} cases in $(( $(date +%s) - start )) s"
exit $status
