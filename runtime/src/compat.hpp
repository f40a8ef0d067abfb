#pragma once
// CUDA driver version checks, in one place: which feature needs which driver.

namespace cgraph::detail {

// The installed driver's CUDA version (e.g. 13000), read once. Throws cuda_error without one.
int driver_version();

// Throws feature_unavailable when the driver is older than `needed` (e.g. 12080).
void require_driver(const char* feature, int needed);

inline constexpr int conditional_nodes_version = 12030;  // if (one body) and while
inline constexpr int if_else_switch_version = 12080;      // if with else, and switch
inline constexpr int parameter_info_version = 12040;      // cudaFuncGetParamInfo

}  // namespace cgraph::detail
