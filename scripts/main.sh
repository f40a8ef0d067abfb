#!/usr/bin/env bash
# Installs what is missing, builds cgraph and runs the main job over examples/: every example
# is checked, lowered to IR and drawn as DOT (rendered to SVG with Graphviz); where a GPU is
# present, the run-time example programs build their graphs, run them and check the results
# against a CPU reference.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
build=${CGRAPH_BUILD_DIR:-build/main}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCGRAPH_BUILD_TESTS=OFF -DCGRAPH_BUILD_BENCH=OFF ${CGRAPH_CMAKE_ARGS:-}
cmake --build "$build" -j "$(nproc)"
bash scripts/check_examples.sh "$build/cgraphc" "$build/examples-out"

programs=("$build"/examples/example_*)
if [ ! -x "${programs[0]}" ]; then
  echo "main job: the CUDA runtime was not built (no CUDA toolkit), so no example program ran"
elif nvidia-smi -L > /dev/null 2>&1; then
  for p in "${programs[@]}"; do "$p"; done
  echo "main job: every example program ran on the GPU and matched its CPU reference"
else
  echo "main job: no GPU on this machine: the ${#programs[@]} example programs are built but not run"
fi
