#pragma once
// Launch limits checked when a kernel node is built or updated (LANGUAGE.md §13 rule 7): the
// limits every GPU shares, for values known only then, and the kernel's and device's own. A
// launch that asks for more than 48 KiB of dynamic shared memory opts its kernel in
// (cudaFuncAttributeMaxDynamicSharedMemorySize) instead of failing when it runs.

#include <cgraph/runtime/backend/site.hpp>
#include <cgraph/runtime/error.hpp>

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>
#include <string>

namespace cgraph::backend {

namespace launch_cache {

// Bumped when a library is unloaded, which makes every cached limit stale.
extern std::atomic<std::uint64_t> unload_generation;

// The last launch this thread found within every limit, without the shared-memory opt-in
// (whose attribute is set per device): a graph's kernel nodes mostly repeat one kernel with
// one configuration, and then a node's check is one comparison, inline where it is built.
struct passed_launch {
  const void* function = nullptr;
  std::uint64_t generation = 0;
  dim3 grid, block;
  unsigned shared_bytes = 0;

  bool same(const cudaKernelNodeParams& p, std::uint64_t g) const {
    return function == p.func && generation == g && grid.x == p.gridDim.x && grid.y == p.gridDim.y &&
           grid.z == p.gridDim.z && block.x == p.blockDim.x && block.y == p.blockDim.y && block.z == p.blockDim.z &&
           shared_bytes == p.sharedMemBytes;
  }
};
inline thread_local passed_launch last_passed;

// The full check (launch_passes, require_launch) of a launch that differs from the last one that passed.
std::string check_new_launch(const cudaKernelNodeParams& p, const site& at);
// check_new_launch for a node being built: throws a build_error at `at`, saying why, where `p`
// cannot launch. Out of line, so a caller's fast path keeps no string in its frame.
void require_new_launch(const cudaKernelNodeParams& p, const site& at);
// check_new_launch for an exec setter: false where the launch breaks a limit or a CUDA call of
// the check fails.
bool passes_new_launch(const cudaKernelNodeParams& p);

}  // namespace launch_cache

// Whether `p` is the launch that passed last on this thread: then it passes again, at the cost
// of one comparison, inline where the node is built or set.
inline bool passed_last(const cudaKernelNodeParams& p) {
  return launch_cache::last_passed.same(p, launch_cache::unload_generation.load(std::memory_order_relaxed));
}

// Whether `p` can launch, for a node being set on an exec (a refusal sends the update to the
// whole graph, whose rebuild reports why). Opts the kernel in to the dynamic shared memory it
// asks for above 48 KiB where the device has it. Costs a few comparisons and one cache probe
// per node: CUDA is asked for a kernel's attributes once per thread, and about the device
// only for launches above 48 KiB.
// A CUDA call of the check that fails refuses too: the rebuild asks again, and a failure
// there names the node's line (a setter has no site to name).
inline bool launch_passes(const cudaKernelNodeParams& p) { return passed_last(p) || launch_cache::passes_new_launch(p); }

// The same check for a node being built: throws a build_error at `at`, saying why, where `p`
// cannot launch.
inline void require_launch(const cudaKernelNodeParams& p, const site& at) {
  if (!passed_last(p)) launch_cache::require_new_launch(p, at);
}

// A library was unloaded: kernels' cached limits are asked for again (a kernel loaded later
// may have an unloaded one's address).
void kernels_unloaded() noexcept;

}  // namespace cgraph::backend
