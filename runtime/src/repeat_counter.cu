// The built-in kernel behind `repeat N`: it ends each iteration of the loop's body. It counts
// iterations in device memory, keeps the loop going until the N-th, then clears the condition
// and resets the count so the next launch of the graph starts from zero.

#include "repeat_counter.hpp"

namespace cgraph::detail {

__global__ void repeat_counter_kernel(unsigned* count_done, unsigned count, cudaGraphConditionalHandle handle) {
  unsigned done = *count_done + 1;
  bool more = done < count;
  *count_done = more ? done : 0u;
  cudaGraphSetConditional(handle, more ? 1u : 0u);
}

const void* repeat_counter_function() { return reinterpret_cast<const void*>(&repeat_counter_kernel); }

}  // namespace cgraph::detail
