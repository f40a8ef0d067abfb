// The built-in kernels behind `repeat N`: repeat_init runs before the loop, zeroes the
// iteration count and opens the loop; repeat_counter ends each iteration, counts it, and
// closes the loop after the N-th. Both take one thread.

#include <cgraph/runtime/backend/graph_state.hpp>

namespace cgraph::backend {

__global__ void repeat_init_kernel(unsigned* count_done, cudaGraphConditionalHandle handle) {
  *count_done = 0;
  cudaGraphSetConditional(handle, 1u);  // the count is at least 1, checked when building
}

__global__ void repeat_counter_kernel(unsigned* count_done, unsigned count, cudaGraphConditionalHandle handle) {
  unsigned done = *count_done + 1;
  *count_done = done;
  cudaGraphSetConditional(handle, done < count ? 1u : 0u);
}

const void* repeat_init_function() { return reinterpret_cast<const void*>(&repeat_init_kernel); }
const void* repeat_counter_function() { return reinterpret_cast<const void*>(&repeat_counter_kernel); }

}  // namespace cgraph::backend
