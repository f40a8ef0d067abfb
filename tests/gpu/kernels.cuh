#pragma once
// Kernels for the GPU tests, registered under the names the test .cgraph texts declare.

#include <cgraph/runtime/registry.hpp>

namespace gpu_test {

// fill, saxpy, scale, add_one_3d, block_sum (dynamic shared memory), count_step (sets a cond
// while a device counter is below a limit), set_cond, increment, copy_scaled.
cgraph::registry kernels();

}  // namespace gpu_test
