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

namespace cgraph::detail {

// Kernel-node parameters of a repeat_init or repeat_counter node. Holds the argument values
// that get() points the parameters at, so keep it alive until the CUDA call that reads them.
struct repeat_kernel_params {
  void* count_done = nullptr;
  cudaGraphConditionalHandle handle = 0;
  unsigned count = 0;
  bool init = false;
  void* args[3] = {};
  cudaKernelNodeParams params{};

  cudaKernelNodeParams* get() {
    args[0] = &count_done;
    args[1] = init ? static_cast<void*>(&handle) : static_cast<void*>(&count);
    args[2] = &handle;
    params.kernelParams = args;
    return &params;
  }
};

inline repeat_kernel_params repeat_params(const ir::node& n, const node_values& v, const std::vector<void*>& counts,
                                          const std::vector<cudaGraphConditionalHandle>& conds) {
  repeat_kernel_params p;
  p.count_done = counts[n.cond];
  p.handle = conds[n.cond];
  bool init = n.kind == ir::node_kind::repeat_init;
  p.init = init;
  if (!init) p.count = static_cast<unsigned>(v.args[0].as_u64());
  p.params.func = const_cast<void*>(init ? repeat_init_function() : repeat_counter_function());
  p.params.gridDim = dim3(1);
  p.params.blockDim = dim3(1);
  return p;
}

}  // namespace cgraph::detail
