#pragma once
// The kernels of tests/gpu/types.cgraph, registered under their names for the run-time path.
#include "types_kernels.cuh"

#include <cgraph/runtime/registry.hpp>

namespace gpu_test {

inline cgraph::registry types_registry() {
  cgraph::registry reg;
  reg.kernel("axpy_half", axpy_half).kernel("scale_bf16", scale_bf16).kernel("accumulate", accumulate).kernel("mark", mark);
  reg.kernel("reverse_in_shared", reverse_in_shared).kernel("bounded_scale", bounded_scale);
  reg.kernel("static_and_dynamic", static_and_dynamic);
  return reg;
}

}  // namespace gpu_test
