#pragma once
// Which plan steps an exec holds values of its own for, and at which index of its list.
//
// A short list while few steps have one, a table by step once many do. The table alone (one
// entry per step, made at the first per-node update) made an exec's first one-node update cost
// in proportion to the graph: 4 bytes a step written into fresh memory, 40 KB and some 40 000
// instructions at 10 000 nodes, against about 1 300 for the update itself. The list alone
// would make an update of every node search it. So: a linear search of at most `few` entries
// (one cache line), then the table.

#include <array>
#include <cstdint>
#include <vector>

namespace cgraph::detail {

class step_slots {
public:
  static constexpr std::uint32_t none = ~0u;

  // The slot of `step`, or `none`.
  std::uint32_t find(std::uint32_t step) const {
    if (!by_step_.empty()) return step < by_step_.size() ? by_step_[step] : none;
    for (std::uint32_t i = 0; i < count_; ++i)
      if (few_[i].step == step) return few_[i].slot;
    return none;
  }

  // Gives `step` (which has none) slot `slot`; `steps` is the plan's step count.
  void add(std::uint32_t step, std::uint32_t slot, std::size_t steps) {
    if (by_step_.empty() && count_ < few) {
      few_[count_++] = {step, slot};
      return;
    }
    if (by_step_.empty()) {
      by_step_.assign(steps, none);
      for (std::uint32_t i = 0; i < count_; ++i) by_step_[few_[i].step] = few_[i].slot;
      count_ = 0;
    }
    by_step_[step] = slot;
  }

  void clear() {
    count_ = 0;
    by_step_.clear();
  }

private:
  static constexpr std::uint32_t few = 8;
  struct entry {
    std::uint32_t step, slot;
  };
  std::array<entry, few> few_{};
  std::uint32_t count_ = 0;
  std::vector<std::uint32_t> by_step_;  // empty while the list holds them
};

}  // namespace cgraph::detail
