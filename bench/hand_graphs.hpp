#pragma once
// The benchmark's graphs written by hand against the CUDA runtime API, the references every
// cgraph path is measured against: runtime_bench times them on the GPU, and host_work_generated
// runs them against the fake runtime (host_work/fake_cuda.cpp), so cgraph's host work and the
// hand-written code's are counted alike.

#include "bench_shapes.hpp"

#include <cuda_runtime_api.h>

#include <vector>

namespace bench {

struct hand_graph {
  cudaGraph_t graph = nullptr;
  std::vector<cudaGraphNode_t> kernels;  // in the order of their `i` (explicit builds only)
};

// The kernel node parameters of `tiny<<<1, 32>>>` with arguments `args`.
cudaKernelNodeParams tiny_params(void** args);

// Shape `s` of `nodes` nodes by explicit graph definition. `handles_first` (conditionals
// only, a diagnostic): every conditional handle is created before the first node, as cgraph
// creates a graph's conds, instead of each just before its node.
hand_graph hand_explicit(shape s, int nodes, float* buffer, bool handles_first = false);

// Shape `s` of `nodes` nodes by stream capture on `stream` (conditional bodies on `side`).
hand_graph hand_capture(shape s, int nodes, float* buffer, cudaStream_t stream, cudaStream_t side,
                        bool handles_first = false);

}  // namespace bench
