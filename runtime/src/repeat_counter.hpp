#pragma once
#include <cuda_runtime_api.h>

namespace cgraph::detail {

// repeat_counter_kernel(unsigned* count_done, unsigned count, cudaGraphConditionalHandle);
// one thread. Lives in the runtime library so users write no kernel for counted loops.
const void* repeat_counter_function();

}  // namespace cgraph::detail
