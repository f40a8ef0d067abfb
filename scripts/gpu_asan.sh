#!/usr/bin/env bash
# The whole GPU suite with cgraph's host code under AddressSanitizer, for the device machine
# (docs/reliability.md, Sanitizers). compute-sanitizer checks the kernels; this checks what runs
# on the CPU around them (builders, captures, execs, host callbacks) against the real driver,
# which the CI's ASan build cannot reach (it has no GPU and leaves the runtime out). Under
# racecheck the GPU suite once crashed in `free` called from the sanitizer's own thread: a clean
# run here says cgraph's host code did not damage the heap. Logs go to $OUT (logs.tar.gz); the
# build to /tmp/cgraph-asan. Carry .device-deps. About 4 minutes to build on 16 cores.
#   CGRAPH_ASAN_RUNS=N   runs of the suite (2)
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/device_build.sh
out=${OUT:-/tmp/cgraph-device}
mkdir -p "$out"
build=${CGRAPH_BUILD_DIR:-/tmp/cgraph-asan}
export NCCL_NVLS_ENABLE=0
flags="-fsanitize=address -fno-omit-frame-pointer"
device_configure "$build" RelWithDebInfo "$out/asan-configure.log" -DCGRAPH_BUILD_BENCH=OFF \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_CUDA_FLAGS="-Xcompiler=${flags// /,}" \
  -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address -DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=address || exit 1
device_build "$build" "$out/asan-build.log" cgraph_gpu_tests || exit 1
ldd "$build/tests/cgraph_gpu_tests" | grep -q libasan || { echo "the test binary is not linked with ASan"; exit 1; }
status=0
for i in $(seq 1 "${CGRAPH_ASAN_RUNS:-2}"); do
  # protect_shadow_gap=0: the CUDA driver maps memory where ASan keeps its shadow gap.
  # detect_leaks=0: the driver and NCCL keep process-lifetime allocations LeakSanitizer reports.
  ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=0:halt_on_error=1 "$build/tests/cgraph_gpu_tests" > "$out/asan-$i.log" 2>&1
  rc=$?
  echo "host ASan run $i: exit $rc"
  grep -E "device:|test cases:|assertions:|Status:|ERROR: AddressSanitizer|^SUMMARY" "$out/asan-$i.log" | head -6
  [ $rc -ne 0 ] && status=1
done
exit $status
