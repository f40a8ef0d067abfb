#pragma once
// Launch limits checked when a kernel node is built or updated (LANGUAGE.md §13 rule 7): the
// limits every GPU shares, for values known only then, and the kernel's and device's own. A
// launch that asks for more than 48 KiB of dynamic shared memory opts its kernel in
// (cudaFuncAttributeMaxDynamicSharedMemorySize) instead of failing when it runs.

#include <cgraph/runtime/backend/site.hpp>

#include <cuda_runtime_api.h>

#include <string>

namespace cgraph::backend {

// Why `p` cannot launch, or empty; opts the kernel in to the dynamic shared memory it asks for
// above 48 KiB where the device has it. Costs a few comparisons and one cache probe per node:
// CUDA is asked for a kernel's attributes once per thread, and about the device only for
// launches above 48 KiB.
std::string check_launch(const cudaKernelNodeParams& p, const site& at);

// A library was unloaded: kernels' cached limits are asked for again (a kernel loaded later
// may have an unloaded one's address).
void kernels_unloaded() noexcept;

}  // namespace cgraph::backend
