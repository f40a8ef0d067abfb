#!/usr/bin/env bash
# Installs what is missing, builds everything and runs every test (CPU tests; GPU tests report
# "skipped" where no GPU is present), compares a profile-guided cgraphc with the plain one, then
# runs the CPU tests again under ASan and UBSan. CI runs exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
build=${CGRAPH_BUILD_DIR:-build/test}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo ${CGRAPH_CMAKE_ARGS:-}
cmake --build "$build" -j "$(nproc)"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"

# The profile-guided build of cgraphc (scripts/pgo_build.sh, GCC or Clang) against the build
# above: the same output, byte for byte, for every example, golden input and a sample of the
# fuzz corpus, with every command emit-cpp included.
if [ "${CGRAPH_PGO_CHECK:-1}" = 1 ]; then
  pgo=${CGRAPH_PGO_BUILD_DIR:-build/pgo}
  CGRAPH_CMAKE_ARGS="-DCGRAPH_WITH_RUNTIME=OFF -DCGRAPH_BUILD_TESTS=OFF -DCGRAPH_BUILD_BENCH=OFF -DCGRAPH_BUILD_EXAMPLES=OFF -DCGRAPH_INSTALL=OFF ${CGRAPH_CMAKE_ARGS:-}" \
    bash scripts/pgo_build.sh "$pgo" cgraphc
  python3 scripts/compare_cgraphc.py "$build/cgraphc" "$pgo/cgraphc" --corpus-sample 1500 --emit
fi

# The CPU tests again under AddressSanitizer and UndefinedBehaviorSanitizer (any finding fails
# the run). The CUDA runtime is left out: its tests need a GPU, where compute-sanitizer runs.
if [ "${CGRAPH_SANITIZERS:-1}" = 1 ]; then
  asan=${CGRAPH_ASAN_BUILD_DIR:-build/asan}
  flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
  cmake -S . -B "$asan" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCGRAPH_WITH_RUNTIME=OFF -DCGRAPH_BUILD_BENCH=OFF \
    -DCGRAPH_INSTALL=OFF -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
    ${CGRAPH_CMAKE_ARGS:-}
  cmake --build "$asan" -j "$(nproc)"
  ctest --test-dir "$asan" --output-on-failure -j "$(nproc)"
fi
