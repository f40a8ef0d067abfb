#include "body_sinks.hpp"

#include <algorithm>
#include <cassert>

namespace cgraph::compiler::detail {

body_sinks::body_sinks(const ir::graph& g, const ir::body& b, std::uint32_t base)
    : base_(base), dependents_end_(b.nodes.size() - std::min<std::size_t>(base, b.nodes.size()), 0) {
  for (std::uint32_t k = base; k < b.nodes.size(); ++k)
    for (auto d : g.deps(b.nodes[k]))
      if (d >= base) dependents_end_[d - base] = std::max(dependents_end_[d - base], k + 1);
  for (std::uint32_t j = base; j < b.nodes.size(); ++j)
    if (dependents_end_[j - base] <= j) candidates_.push_back(j);
}

void body_sinks::from(std::uint32_t first, std::vector<std::uint32_t>& out) const {
  assert(first >= base_ && "body_sinks: a query from before the node the index starts at");
  out.clear();
  for (auto j = std::lower_bound(candidates_.begin(), candidates_.end(), first); j != candidates_.end(); ++j)
    if (dependents_end_[*j - base_] <= first) out.push_back(*j);
}

}  // namespace cgraph::compiler::detail
