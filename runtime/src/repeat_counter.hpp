#pragma once
#include <cuda_runtime_api.h>

namespace cgraph::detail {

// The built-in kernels of `repeat`, in the runtime library so users write none:
//   repeat_init_kernel(unsigned* count_done, cudaGraphConditionalHandle)
//   repeat_counter_kernel(unsigned* count_done, unsigned count, cudaGraphConditionalHandle)
const void* repeat_init_function();
const void* repeat_counter_function();

}  // namespace cgraph::detail

#include "built_graph.hpp"

#include <cgraph/generated.hpp>

namespace cgraph::detail {

// Kernel-node parameters of a repeat_init or repeat_counter node, as generated code makes
// them (gen::repeat_call; its params() points into it, so keep it alive until CUDA has read them).
inline gen::repeat_call repeat_params(const ir::node& n, const node_values& v, const std::vector<void*>& counts,
                                      const std::vector<cudaGraphConditionalHandle>& conds) {
  bool init = n.kind == ir::node_kind::repeat_init;
  return {counts[n.cond], init ? 0u : static_cast<unsigned>(v.args[0].as_u64()), conds[n.cond], init};
}

}  // namespace cgraph::detail
