#include "launch_check.hpp"

#include "seam.hpp"

#include <cgraph/compiler/launch_limits.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <utility>

#include <fmt/format.h>

namespace cgraph::backend {

namespace launch_cache {
std::atomic<std::uint64_t> unload_generation{0};
}  // namespace launch_cache
using launch_cache::unload_generation;

namespace {

// A kernel's maxThreadsPerBlock (its registers and __launch_bounds__ decide it), by function,
// in a small cache per thread: build and update look it up once per kernel node. Two ways per
// set, the most recent first: with one way, two kernels of a graph whose addresses shared a
// slot asked CUDA again at every node, updates included (the fault sweeps saw those calls).
struct thread_limit {
  const void* function = nullptr;
  std::uint64_t generation = 0;
  int max_threads = 0;
};

int max_threads_of(const void* function, const site& at) {
  constexpr std::size_t sets = 64;
  thread_local std::array<std::array<thread_limit, 2>, sets> cache{};
  auto& set = cache[(reinterpret_cast<std::uintptr_t>(function) >> 4) % sets];
  const std::uint64_t generation = unload_generation.load(std::memory_order_relaxed);
  auto fresh = [&](const thread_limit& l) { return l.function == function && l.generation == generation; };
  if (fresh(set[0])) return set[0].max_threads;
  if (!fresh(set[1])) {
    cudaFuncAttributes attributes{};
    CGRAPH_CUDA(cudaFuncGetAttributes(&attributes, function), at);
    set[1] = {function, generation, attributes.maxThreadsPerBlock};
  }
  std::swap(set[0], set[1]);
  return set[0].max_threads;
}

// Above 48 KiB a kernel needs cudaFuncAttributeMaxDynamicSharedMemorySize, up to what the device
// offers per block with that opt-in, less the kernel's static shared memory.
std::string opt_in_shared_memory(const cudaKernelNodeParams& p, const site& at) {
  cudaFuncAttributes attributes{};
  CGRAPH_CUDA(cudaFuncGetAttributes(&attributes, p.func), at);
  int device = 0, opt_in = 0;
  CGRAPH_CUDA(cudaGetDevice(&device), at);
  CGRAPH_CUDA(cudaDeviceGetAttribute(&opt_in, cudaDevAttrMaxSharedMemoryPerBlockOptin, device), at);
  const std::size_t available = static_cast<std::size_t>(opt_in) - std::min<std::size_t>(attributes.sharedSizeBytes, opt_in);
  if (p.sharedMemBytes > available)
    return fmt::format("{} bytes of dynamic shared memory, more than this device offers the kernel: {} bytes per block "
                       "(cudaDevAttrMaxSharedMemoryPerBlockOptin) less its {} bytes of static shared memory",
                       p.sharedMemBytes, opt_in, attributes.sharedSizeBytes);
  if (static_cast<std::size_t>(attributes.maxDynamicSharedSizeBytes) < p.sharedMemBytes)
    CGRAPH_CUDA(cudaFuncSetAttribute(p.func, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(p.sharedMemBytes)),
                at);
  return {};
}

}  // namespace

void kernels_unloaded() noexcept { unload_generation.fetch_add(1, std::memory_order_relaxed); }

std::string launch_cache::check_new_launch(const cudaKernelNodeParams& p, const site& at) {
  const std::uint64_t generation = unload_generation.load(std::memory_order_relaxed);
  const dim3 g = p.gridDim, b = p.blockDim;
  if (auto broken = ir::first_broken_limit({g.x, g.y, g.z}, {b.x, b.y, b.z}, static_cast<std::int64_t>(p.sharedMemBytes)))
    return ir::launch_limit_message(broken->which, broken->axis, broken->value);
  const int threads = static_cast<int>(b.x * b.y * b.z);  // at most 1024 here
  if (int most = max_threads_of(p.func, at); threads > most)
    return fmt::format("a block of {} threads, more than this kernel can run: {} (its maxThreadsPerBlock, set by its "
                       "registers or __launch_bounds__)",
                       threads, most);
  if (p.sharedMemBytes > ir::launch_limits::shared_bytes_without_opt_in) return opt_in_shared_memory(p, at);
  last_passed = {p.func, generation, g, b, static_cast<unsigned>(p.sharedMemBytes)};
  return {};
}

void launch_cache::require_new_launch(const cudaKernelNodeParams& p, const site& at) {
  if (std::string why = check_new_launch(p, at); !why.empty()) throw build_error(at.str(), why);
}

bool launch_cache::passes_new_launch(const cudaKernelNodeParams& p) {
  try {
    return check_new_launch(p, {}).empty();
  } catch (const cuda_error&) {
    (void)cudaGetLastError();
    return false;
  }
}

}  // namespace cgraph::backend
