#include <cgraph/compiler/launch_limits.hpp>

#include <fmt/format.h>

namespace cgraph::ir {

std::string launch_limit_message(launch_limit which, int axis, std::int64_t value) {
  static constexpr const char* axes[] = {"x", "y", "z"};
  switch (which) {
    case launch_limit::block:
      return fmt::format("block dimension {} is {}, more than CUDA's limit of {}", axes[axis], value,
                         launch_limits::block[axis]);
    case launch_limit::grid:
      return fmt::format("grid dimension {} is {}, more than CUDA's limit of {}", axes[axis], value,
                         launch_limits::grid[axis]);
    case launch_limit::threads:
      return fmt::format("a block of {} threads (x·y·z), more than CUDA's limit of {}", value,
                         launch_limits::threads_per_block);
    case launch_limit::shared_bytes:
      return fmt::format("{} bytes of dynamic shared memory, more than any GPU offers per block ({} bytes, 227 KiB)",
                         value, launch_limits::shared_bytes);
  }
  return {};
}

}  // namespace cgraph::ir
