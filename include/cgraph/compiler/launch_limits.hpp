#pragma once
// CUDA's launch limits (LANGUAGE.md §13 rule 7): the same on every GPU cgraph supports
// (compute capability 7.0 and later). The compiler checks them where a launch's dimensions are
// constants; the backend checks every kernel node's values when it builds or updates, with
// the same messages, and then the real kernel's and device's own limits. Dynamic shared memory
// is bounded here by the most any GPU offers (227 KiB per block with the opt-in attribute,
// sm_80 and later); the real device's figure is the backend's check.

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace cgraph::ir {

struct launch_limits {
  static constexpr std::array<std::int64_t, 3> block{1024, 1024, 64};
  static constexpr std::int64_t threads_per_block = 1024;
  static constexpr std::array<std::int64_t, 3> grid{2147483647, 65535, 65535};
  static constexpr std::int64_t shared_bytes = 227 * 1024;
  // Above this a kernel must opt in (cudaFuncAttributeMaxDynamicSharedMemorySize).
  static constexpr std::int64_t shared_bytes_without_opt_in = 48 * 1024;
};

enum class launch_limit : std::uint8_t { block, grid, threads, shared_bytes };

// "block dimension y is 2048, more than CUDA's limit of 1024" (`axis` 0..2 for block and grid).
std::string launch_limit_message(launch_limit which, int axis, std::int64_t value);

// A limit a launch breaks: which, on which axis, and the value that breaks it.
struct broken_limit {
  launch_limit which;
  int axis;
  std::int64_t value;
};

// The first limit a launch breaks, or nothing: the comparisons alone, inline, so the backend
// checks every kernel node it builds or updates without making a message.
inline std::optional<broken_limit> first_broken_limit(const std::array<std::int64_t, 3>& grid,
                                                      const std::array<std::int64_t, 3>& block,
                                                      std::int64_t shared_bytes) {
  for (int i = 0; i < 3; ++i) {
    if (block[i] > launch_limits::block[i]) return broken_limit{launch_limit::block, i, block[i]};
    if (grid[i] > launch_limits::grid[i]) return broken_limit{launch_limit::grid, i, grid[i]};
  }
  // Each factor is at most 1024 here, so the product cannot overflow.
  const std::int64_t threads = block[0] * block[1] * block[2];
  if (threads > launch_limits::threads_per_block) return broken_limit{launch_limit::threads, 0, threads};
  if (shared_bytes > launch_limits::shared_bytes) return broken_limit{launch_limit::shared_bytes, 0, shared_bytes};
  return std::nullopt;
}

}  // namespace cgraph::ir
