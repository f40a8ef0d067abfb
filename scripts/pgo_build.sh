#!/usr/bin/env bash
# A Release build whose front end (cgraph_dsl, cgraph_compiler) is optimised from a profile
# (cmake/cgraph_pgo.cmake): an instrumented cgraphc is built and trained
# (scripts/pgo_train.sh), then the build folder is built again with the counts it wrote.
# Usage: scripts/pgo_build.sh BUILD_DIR [TARGET…]  (every target when none is named)
# CGRAPH_CMAKE_ARGS adds configure arguments to both rounds; CGRAPH_BUILD_JOBS sets the build's
# parallel jobs (all cores unless given). GCC only.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: pgo_build.sh BUILD_DIR [TARGET...]}
shift
jobs=${CGRAPH_BUILD_JOBS:-$(nproc)}
targets=()
for t in "$@"; do targets+=(--target "$t"); done
# shellcheck disable=SC2086  # CGRAPH_CMAKE_ARGS is a list of words
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCGRAPH_PGO=GENERATE ${CGRAPH_CMAKE_ARGS:-} > /dev/null
cmake --build "$build" -j "$jobs" --target cgraphc
find "$build" -name '*.gcda' -delete  # an earlier round's counts would add to this one's
bash scripts/pgo_train.sh "$build/cgraphc"
cmake -S . -B "$build" -DCGRAPH_PGO=USE > /dev/null
cmake --build "$build" -j "$jobs" "${targets[@]}"
echo "pgo_build: $build built from $(find "$build" -name '*.gcda' | wc -l) profiles"
