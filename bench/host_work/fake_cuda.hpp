#pragma once
// What the fake CUDA runtime (fake_cuda.cpp) lets a test read back: the launch configuration and
// the arguments (the kernels registered with the fake all take 8 bytes, a pointer or a cond's
// handle, and one 4-byte value) of every kernel node made, by cudaGraphAddKernelNode or by a
// launch during capture, and of every kernel node set on an exec
// (cudaGraphExecKernelNodeSetParams), in the order made or set, while recording is on; and what
// a build or update set beside the nodes' values (graph_calls).

#include <cuda_runtime_api.h>

#include <string>
#include <utility>
#include <vector>

namespace fake_cuda {

struct kernel_record {
  dim3 grid, block;
  unsigned shared;
  unsigned long long arg1;  // the second argument's 4 bytes
  unsigned long long arg0;  // the first argument's 8 bytes (a pointer, or a cond's handle)
  const void* function;     // the kernel
  cudaGraphNode_t node;     // the node made for it (null for a kernel set on an exec)
};

void record_kernels(bool on);  // on: clears what was recorded
const std::vector<kernel_record>& kernels_recorded();
// In order, while recording: "priority P" and "cluster X,Y,Z" (cudaGraphKernelNodeSetAttribute),
// "enabled" and "disabled" (cudaGraphNodeSetEnabled), and "edge from port F to port T" for each
// programmatic edge a node was added or captured with.
const std::vector<std::string>& graph_calls();
// The dependencies among the kernel nodes made while recording, each as (the second argument of
// the node depended on, that of the node that depends on it), sorted: a graph's edges between
// kernels, however it was built (added with dependencies, or captured after a stream's).
std::vector<std::pair<unsigned long long, unsigned long long>> kernel_edges();
long streams_and_events_made();  // cudaStreamCreateWithFlags and cudaEventCreateWithFlags calls so far
long param_info_calls();         // cudaFuncGetParamInfo calls so far

// Grid x and the second argument of each kernel node made or set, in order.
using kernel_sets = std::vector<std::pair<unsigned, unsigned long long>>;

// The kernel_sets of what `run` makes or sets. The second argument of kernel `unread` reads as 0
// (a repeat's init node: its cond's handle, which differs from build to build).
template <typename F>
kernel_sets grids_and_args_of(F&& run, const void* unread = nullptr) {
  record_kernels(true);
  run();
  kernel_sets out;
  for (const kernel_record& k : kernels_recorded()) out.emplace_back(k.grid.x, k.function == unread ? 0 : k.arg1);
  record_kernels(false);
  return out;
}

}  // namespace fake_cuda
