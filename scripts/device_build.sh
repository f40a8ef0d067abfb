# shellcheck shell=bash
# Sourced by the device scripts (device_*.sh, gpu_*.sh), from the repository root: what every
# device build passes to CMake, in one place, and the configure and build steps with their logs.
#   device_configure BUILD_DIR BUILD_TYPE LOG [CMAKE_ARG…]   (the source tree is CGRAPH_SOURCE_DIR,
#                                                          the repository unless given)
#   device_build BUILD_DIR LOG [TARGET…]    (every target when none is named; CGRAPH_BUILD_JOBS
#                                            cores, all of them unless given)
# Each returns 1 on failure, after printing the lines of LOG that say why. `device_cmake_args`
# holds the arguments every device build shares, for scripts that configure through another
# script (scripts/pgo_build.sh takes them as CGRAPH_CMAKE_ARGS): the device's GPUs (H100 or
# H200, sm_90) and the range-v3 headers it lacks, carried in .device-deps
# (scripts/device_deps.sh), whose presence is checked here before anything builds.
bash scripts/device_deps.sh --check || exit 1
device_cmake_args=(-DCMAKE_CUDA_ARCHITECTURES=90 "-DCGRAPH_EXTRA_INCLUDE_DIRS=$PWD/.device-deps/include")

device_configure() {
  local build=$1 type=$2 log=$3
  shift 3
  cmake -S "${CGRAPH_SOURCE_DIR:-.}" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE="$type" "${device_cmake_args[@]}" "$@" > "$log" 2>&1 ||
    { tail -30 "$log"; return 1; }
}

device_build() {
  local build=$1 log=$2
  shift 2
  local targets=()
  [ $# -gt 0 ] && targets=(--target "$@")
  cmake --build "$build" -j "${CGRAPH_BUILD_JOBS:-$(nproc)}" "${targets[@]}" > "$log" 2>&1 ||
    { grep -E "error|FAILED" "$log" | head -40; return 1; }
}
