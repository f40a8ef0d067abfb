#!/usr/bin/env bash
# Fuzzes both targets side by side from binaries built earlier (FUZZ_PREBUILT, as fuzz.sh takes
# it): the front end (`check`) and the whole compiler, each in its own build folder, for a
# machine with many cores and a time limit on each call (the device machine). Nothing is merged:
# each target's summary, logs and kept inputs come back under FUZZ_ARCHIVE/check and
# FUZZ_ARCHIVE/all (docs/reliability.md says how to merge them here).
#   FUZZ_PREBUILT  required (see fuzz.sh)
#   FUZZ_ARCHIVE   required: where the two archives go
#   FUZZ_SECONDS   how long each target fuzzes (default 540)
#   FUZZ_JOBS      jobs in all (default: the machine's cores), split evenly between the targets
#   FUZZ_TIMEOUT   as fuzz.sh (default here 30)
set -euo pipefail
: "${FUZZ_PREBUILT:?fuzz_both.sh: set FUZZ_PREBUILT}" "${FUZZ_ARCHIVE:?fuzz_both.sh: set FUZZ_ARCHIVE}"
# Absolute, from the caller's folder: fuzz.sh writes it from its build folder.
FUZZ_ARCHIVE=$(mkdir -p "$FUZZ_ARCHIVE" && cd "$FUZZ_ARCHIVE" && pwd)
cd "$(dirname "$0")/.."
jobs=${FUZZ_JOBS:-$(nproc)}
half=$(( jobs / 2 > 0 ? jobs / 2 : 1 ))
run() {  # target, build folder, jobs
  FUZZ_TARGET=$1 FUZZ_BUILD=$2 FUZZ_JOBS=$3 FUZZ_MERGE=0 FUZZ_TIMEOUT=${FUZZ_TIMEOUT:-30} \
    FUZZ_SECONDS=${FUZZ_SECONDS:-540} FUZZ_ARCHIVE=$FUZZ_ARCHIVE/$1 bash scripts/fuzz.sh > "$FUZZ_ARCHIVE/$1.out" 2>&1
}
run check build/fuzz-both-check "$half" & front=$!
run all build/fuzz-both-all "$(( jobs - half > 0 ? jobs - half : 1 ))" & whole=$!
status=0
wait "$front" || status=1
wait "$whole" || status=1
for t in check all; do echo "== $t"; cat "$FUZZ_ARCHIVE/$t/summary.txt" 2>/dev/null || tail -5 "$FUZZ_ARCHIVE/$t.out"; done
exit $status
