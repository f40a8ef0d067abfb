#include "body_sinks.hpp"

#include <algorithm>

namespace cgraph::compiler::detail {

body_sinks::body_sinks(const ir::graph& g, const ir::body& b) : dependents_end_(b.nodes.size(), 0) {
  for (std::uint32_t k = 0; k < b.nodes.size(); ++k)
    for (auto d : g.deps(b.nodes[k])) dependents_end_[d] = std::max(dependents_end_[d], k + 1);
  for (std::uint32_t j = 0; j < b.nodes.size(); ++j)
    if (dependents_end_[j] <= j) candidates_.push_back(j);
}

void body_sinks::from(std::uint32_t first, std::vector<std::uint32_t>& out) const {
  out.clear();
  for (auto j = std::lower_bound(candidates_.begin(), candidates_.end(), first); j != candidates_.end(); ++j)
    if (dependents_end_[*j] <= first) out.push_back(*j);
}

}  // namespace cgraph::compiler::detail
