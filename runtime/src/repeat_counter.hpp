#pragma once
#include <cuda_runtime_api.h>

namespace cgraph::detail {

// The built-in kernels of `repeat`, in the runtime library so users write none:
//   repeat_init_kernel(unsigned* count_done, cudaGraphConditionalHandle)
//   repeat_counter_kernel(unsigned* count_done, unsigned count, cudaGraphConditionalHandle)
const void* repeat_init_function();
const void* repeat_counter_function();

}  // namespace cgraph::detail
