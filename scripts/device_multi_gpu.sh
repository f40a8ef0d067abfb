#!/usr/bin/env bash
# The two-GPU half of issue 16's checks, for the two-GPU device machine (nvidia-h200-x2): the
# multi-GPU and collective GPU tests (one process driving both GPUs, two processes of one rank
# each, faults injected), the data-parallel example from run-time text and from generated C++,
# and multi_gpu_bench from a Release build. Logs go to $OUT when set; the summary to stdout.
# scripts/repro/nccl_conditional.cu probes NCCL inside conditional bodies (docs/language.md §15).
#   CGRAPH_MULTI_GPU_STEPS="tests example probe bench" (default: all four)
#   CGRAPH_MULTI_GPU_TRACES="ARGS;ARGS;…": in place of the benchmark, one `multi_gpu_bench --trace
#     ARGS` run each (30 s at most), to find which orders of variants hang (docs/performance.md),
#     for example "2 65536 cgraph;2 65536 streams,cgraph;2 65536 'hand graph,cgraph'".
#     NCCL_GRAPH_MIXING_SUPPORT=1 in the environment restores NCCL's default for them.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/device_build.sh
# The workplace's rule for its multi-GPU machines: NVLink multicast stays off (NVLS can put the
# host's shared GPUs out of service). Exported here so the spawned ranks inherit it too.
export NCCL_NVLS_ENABLE=0
out=${OUT:-/tmp/cgraph-multi-gpu}
mkdir -p "$out"
steps=${CGRAPH_MULTI_GPU_STEPS:-tests example probe bench}
nvidia-smi -L
nvidia-smi topo -m 2>&1 | head -4

if [[ " $steps " == *" tests "* || " $steps " == *" example "* ]]; then
  build=${CGRAPH_BUILD_DIR:-/tmp/cgraph-device-build}
  device_configure "$build" RelWithDebInfo /tmp/mg-configure.log || exit 1
  device_build "$build" /tmp/mg-build.log cgraph_gpu_tests cgraph_nccl_rank example_data_parallel \
    example_data_parallel_generated || exit 1
fi
if [[ " $steps " == *" tests "* ]]; then
  echo "== GPU tests: devices and collectives (multi_gpu.*, faults.placed_nodes_and_collectives*)"
  # A hang in NCCL would otherwise take the whole call: 240 s is ten times a passing run.
  timeout 240 "$build/tests/cgraph_gpu_tests" -tc='multi_gpu.*,faults.placed_nodes_and_collectives*' -s \
    > "$out/multi_gpu_tests.log" 2>&1
  echo "exit $?"
  grep -E "^device|MESSAGE|rank [01]|ERROR|FAILED|test cases|assertions" -A1 "$out/multi_gpu_tests.log" | grep -vE "^--$" | tail -40
fi
if [[ " $steps " == *" example "* ]]; then
  echo "== example: data_parallel"
  for p in "$build/examples/example_data_parallel" "$build/examples/example_data_parallel_generated"; do
    timeout 120 "$p" 2>&1
  done | tee "$out/example.log"
fi
if [[ " $steps " == *" probe "* ]]; then
  echo "== probe: NCCL inside a conditional body"
  nccl_lib=$(grep -E '^CGRAPH_NCCL_LIBRARY' "${build:-/tmp/cgraph-device-build}/CMakeCache.txt" 2>/dev/null | cut -d= -f2)
  nccl_inc=$(grep -E '^CGRAPH_NCCL_INCLUDE_DIR' "${build:-/tmp/cgraph-device-build}/CMakeCache.txt" 2>/dev/null | cut -d= -f2)
  nvcc -O2 -arch=sm_90 ${nccl_inc:+-I"$nccl_inc"} -o /tmp/nccl_conditional scripts/repro/nccl_conditional.cu ${nccl_lib:-"-lnccl"} &&
    timeout 120 /tmp/nccl_conditional 2>&1 | tee "$out/nccl_conditional.txt"
fi
if [[ " $steps " == *" bench "* ]]; then
  echo "== multi_gpu_bench (Release)"
  bench=/tmp/cgraph-multi-gpu-bench
  device_configure "$bench" Release /tmp/mg-bench-configure.log -DCGRAPH_BUILD_TESTS=OFF || exit 1
  device_build "$bench" /tmp/mg-bench-build.log multi_gpu_bench || exit 1
  if [ -n "${CGRAPH_MULTI_GPU_TRACES:-}" ]; then  # diagnostics: "ARGS;ARGS;…", each a --trace run of 30 s at most
    IFS=';' read -ra traces <<< "$CGRAPH_MULTI_GPU_TRACES"
    for t in "${traces[@]}"; do
      echo "-- multi_gpu_bench --trace $t"
      eval "timeout 30 \"$bench/bench/multi_gpu_bench\" --trace $t" 2>&1 | tail -4
      echo "   exit ${PIPESTATUS[0]}"
    done
    exit 0
  fi
  timeout 240 "$bench/bench/multi_gpu_bench" --csv "$out/multi_gpu_bench.csv" ${CGRAPH_BENCH_ARGS:-} 2>&1 |
    tee "$out/multi_gpu_bench.txt"
fi
