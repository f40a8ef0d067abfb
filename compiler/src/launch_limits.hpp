#pragma once
// CUDA's launch limits (LANGUAGE.md §13 rule 7), checked at compile time where a launch's
// dimensions are constants. The same on every GPU cgraph supports (compute capability 7.0 and
// later); dynamic shared memory is bounded by the most any of them offers (227 KiB per block
// with the opt-in attribute, sm_80 and later): the real device's figure is a build-time check.

#include <array>
#include <cstdint>

namespace cgraph::compiler::detail {

struct launch_limits {
  static constexpr std::array<std::int64_t, 3> block{1024, 1024, 64};
  static constexpr std::int64_t threads_per_block = 1024;
  static constexpr std::array<std::int64_t, 3> grid{2147483647, 65535, 65535};
  static constexpr std::int64_t shared_bytes = 227 * 1024;
};

}  // namespace cgraph::compiler::detail
