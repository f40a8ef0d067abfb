#pragma once
// The two construction strategies as a test loops over them, for the GPU tests (gpu_support.hpp)
// and the fake-runtime tests alike.

#include <cgraph/runtime.hpp>

namespace cgraph_tests {

inline cgraph::build_options with(cgraph::strategy s) {
  cgraph::build_options o;
  o.strategy = s;
  return o;
}

inline constexpr cgraph::strategy both[] = {cgraph::strategy::explicit_nodes, cgraph::strategy::stream_capture};

inline const char* name_of(cgraph::strategy s) {
  return s == cgraph::strategy::explicit_nodes ? "explicit" : "capture";
}

}  // namespace cgraph_tests
