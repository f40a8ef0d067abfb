#pragma once
// CUDA driver version checks, in one place: which feature needs which driver.

namespace cgraph::detail {

// Asks CUDA for the installed driver's version; throws cuda_error without one.
int read_driver_version();

// The installed driver's CUDA version (e.g. 13000), read once. Inline, as require_driver: every
// conditional node asks, and the out-of-line calls were 12 instructions of each (host_work_bench).
inline int driver_version() {
  static const int version = read_driver_version();
  return version;
}

// Throws feature_unavailable for `feature`, which needs driver `needed`.
[[noreturn]] void driver_too_old(const char* feature, int needed);

// Throws feature_unavailable when the driver is older than `needed` (e.g. 12080).
inline void require_driver(const char* feature, int needed) {
  if (driver_version() < needed) [[unlikely]]
    driver_too_old(feature, needed);
}

inline constexpr int conditional_nodes_version = 12030;  // if (one body) and while
inline constexpr int if_else_switch_version = 12080;      // if with else, and switch
inline constexpr int parameter_info_version = 12040;      // cudaFuncGetParamInfo

}  // namespace cgraph::detail
