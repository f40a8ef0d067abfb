#!/usr/bin/env bash
# A Release build whose front end (cgraph_dsl, cgraph_compiler) is optimised from a profile
# (cmake/cgraph_pgo.cmake): an instrumented cgraphc is built and trained
# (scripts/pgo_train.sh), then the build folder is built again with the counts it wrote.
# Usage: scripts/pgo_build.sh BUILD_DIR [TARGET…]  (every target when none is named)
# CGRAPH_CMAKE_ARGS adds configure arguments to both rounds; CGRAPH_BUILD_JOBS sets the build's
# parallel jobs (all cores unless given). GCC or Clang (with its llvm-profdata).
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
cache() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"; }
profiles=$(cache CGRAPH_PGO_DIR)      # Clang's raw profiles
profdata=$(cache CGRAPH_LLVM_PROFDATA)  # set with Clang only
# An earlier round's counts would add to this one's.
find "$build" -name '*.gcda' -delete
rm -f "$profiles"/*.profraw "$profiles/cgraph.profdata"
bash scripts/pgo_train.sh "$build/cgraphc"
if [ -n "$profdata" ]; then
  "$profdata" merge -o "$profiles/cgraph.profdata" "$profiles"/*.profraw
  made="$profiles/cgraph.profdata"
else
  made="$(find "$build" -name '*.gcda' | wc -l) files of counts"
fi
cmake -S . -B "$build" -DCGRAPH_PGO=USE > /dev/null
cmake --build "$build" -j "$jobs" "${targets[@]}"
echo "pgo_build: $build built from $made"
