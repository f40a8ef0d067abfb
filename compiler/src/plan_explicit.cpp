// The explicit backend: IR bodies → a flat list of "add node" steps in a fixed order.
// Creation order is deterministic (bodies depth-first, nodes in IR order) because CUDA's
// whole-graph update pairs nodes of two graphs by the order they were created.

#include <cgraph/plan.hpp>

namespace cgraph::plan {

namespace {

class planner {
public:
  explicit planner(const ir::graph& g) { plan_.graph = &g; plan_.cond_homes.resize(g.conds.size()); }

  explicit_plan run() {
    body(plan_.graph->root, location{});
    return std::move(plan_);
  }

private:
  void body(const ir::body& b, location parent) {
    std::vector<std::uint32_t> step_of(b.nodes.size());
    for (std::size_t i = 0; i < b.nodes.size(); ++i) {
      const ir::node& n = b.nodes[i];
      step s;
      s.node = &n;
      s.parent = parent;
      for (auto d : n.deps) s.deps.push_back(step_of[d]);
      auto index = static_cast<std::uint32_t>(plan_.steps.size());
      step_of[i] = index;
      plan_.steps.push_back(std::move(s));
      if (n.kind != ir::node_kind::conditional) continue;
      plan_.cond_homes[n.cond] = parent;
      for (std::uint32_t k = 0; k < n.bodies.size(); ++k) {
        ++plan_.body_graphs;
        body(n.bodies[k], location{index, k});
      }
    }
  }

  explicit_plan plan_;
};

}  // namespace

explicit_plan lower_explicit(const ir::graph& g) { return planner(g).run(); }

}  // namespace cgraph::plan
