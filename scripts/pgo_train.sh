#!/usr/bin/env bash
# The training of a profile-guided build (cmake/cgraph_pgo.cmake): runs an instrumented cgraphc
# over every .cgraph file under examples/ and tests/golden/ (valid programs and the errors the
# golden tests hold), each command in the file's folder as the golden tests run them. Never a
# benchmark's text: the benchmarks measure what the training did not see.
# Usage: scripts/pgo_train.sh CGRAPHC
set -euo pipefail
cgraphc=$(realpath "${1:?usage: pgo_train.sh CGRAPHC}")
cd "$(dirname "$0")/.."
runs=0
while IFS= read -r -d '' file; do
  dir=$(dirname "$file") name=$(basename "$file")
  for command in check ir dot fmt "emit-cpp --mode explicit" "emit-cpp --mode capture"; do
    # shellcheck disable=SC2086  # the command's words
    (cd "$dir" && "$cgraphc" $command "$name" > /dev/null 2>&1) || true  # errors are training too
    runs=$((runs + 1))
  done
done < <(find examples tests/golden -name '*.cgraph' -print0 | sort -z)
echo "pgo_train: $runs runs of $(basename "$cgraphc")"
