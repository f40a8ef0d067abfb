#pragma once
// The memory of one built graph's node arguments (built_graph::arena).

#include <cstddef>
#include <memory>
#include <memory_resource>

namespace cgraph::detail {

// One block, sized when the graph is made for every step's arguments, handed out by moving a
// pointer; whatever does not fit (a node whose arguments grow on a later refresh) comes from a
// monotonic resource behind it. Nothing is freed before the arena. std::pmr's monotonic
// resource does the same, but through an out-of-line call of about 40 instructions per node
// (docs/performance.md, run 16).
class bump_arena final : public std::pmr::memory_resource {
public:
  explicit bump_arena(std::size_t bytes) : block_(std::make_unique_for_overwrite<std::byte[]>(bytes)), size_(bytes) {}

private:
  void* do_allocate(std::size_t bytes, std::size_t alignment) override {
    const std::size_t at = (used_ + alignment - 1) & ~(alignment - 1);
    if (at + bytes > size_) return overflow_.allocate(bytes, alignment);
    used_ = at + bytes;
    return block_.get() + at;
  }
  void do_deallocate(void*, std::size_t, std::size_t) override {}
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override { return this == &other; }

  std::unique_ptr<std::byte[]> block_;
  std::size_t size_;
  std::size_t used_ = 0;
  std::pmr::monotonic_buffer_resource overflow_;
};

}  // namespace cgraph::detail
