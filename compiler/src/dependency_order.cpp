#include "dependency_order.hpp"

#include <numeric>
#include <queue>

namespace cgraph::compiler::detail {

std::vector<std::uint32_t> dependency_order(const ir::graph& g, const ir::body& b) {
  const auto n = static_cast<std::uint32_t>(b.nodes.size());
  std::vector<std::uint32_t> order(n);
  bool backward = true;
  for (std::uint32_t i = 0; i < n && backward; ++i)
    for (auto d : g.deps(b.nodes[i])) backward = backward && d < i;
  if (backward) {
    std::iota(order.begin(), order.end(), 0u);
    return order;
  }
  order.clear();
  // Each node's dependents in one list, node by node (offsets in `first`), not a list each.
  std::vector<std::uint32_t> waiting(n, 0), first(n + 1, 0);
  for (std::uint32_t i = 0; i < n; ++i)
    for (auto d : g.deps(b.nodes[i])) {
      ++waiting[i];
      ++first[d + 1];
    }
  std::partial_sum(first.begin(), first.end(), first.begin());
  std::vector<std::uint32_t> dependents(first[n]), next(first.begin(), first.end() - 1);
  for (std::uint32_t i = 0; i < n; ++i)
    for (auto d : g.deps(b.nodes[i])) dependents[next[d]++] = i;
  std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, std::greater<>> ready;
  for (std::uint32_t i = 0; i < n; ++i)
    if (waiting[i] == 0) ready.push(i);
  while (!ready.empty()) {
    auto i = ready.top();
    ready.pop();
    order.push_back(i);
    for (std::uint32_t k = first[i]; k < first[i + 1]; ++k)
      if (--waiting[dependents[k]] == 0) ready.push(dependents[k]);
  }
  return order;
}

}  // namespace cgraph::compiler::detail
