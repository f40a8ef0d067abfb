#pragma once
// Kernels for the GPU tests, registered under the names the test .cgraph texts declare.

#include <cgraph/runtime/registry.hpp>

namespace gpu_test {

// fill, saxpy, scale, add_one_3d, block_sum (dynamic shared memory), count_step (sets a cond
// while a device counter is below a limit), set_cond, increment, copy_scaled.
cgraph::registry kernels();
// The kernels of tests/gpu/multi_gpu.cgraph (multi_gpu_kernels.cu): mg_fill, mg_axpy, mg_scale.
cgraph::registry multi_gpu_kernels();

}  // namespace gpu_test
