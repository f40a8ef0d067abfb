// The explicit backend: IR bodies → a flat list of "add node" steps in a fixed order.
// Creation order is deterministic (bodies depth-first, nodes in IR order as far as their
// dependencies allow) because CUDA's whole-graph update pairs nodes of two graphs by the
// order they were created.

#include "dependency_order.hpp"

#include <cgraph/compiler/plan.hpp>

#include <algorithm>

namespace cgraph::plan {

namespace {

class planner {
public:
  explicit planner(const ir::graph& g) { plan_.graph = &g; plan_.cond_homes.resize(g.conds.size()); }

  explicit_plan run() {
    body(plan_.graph->root, location{});
    // Every step's dependencies are in dep_steps now, which no longer moves: view them. A step's
    // end is where the next one's begin.
    const std::span<const std::uint32_t> all(plan_.dep_steps);
    for (std::size_t i = 0; i < plan_.steps.size(); ++i) {
      const std::size_t end = i + 1 < plan_.steps.size() ? dep_begin_[i + 1] : all.size();
      plan_.steps[i].deps = all.subspan(dep_begin_[i], end - dep_begin_[i]);
    }
    group_conds_by_graph();
    find_late_readers();
    find_port_edges_and_attributes();
    return std::move(plan_);
  }

private:
  // explicit_plan::conds_by_graph: a count per graph, then each cond in order where its graph's
  // run begins.
  void group_conds_by_graph() {
    graph_conds& out = plan_.conds_by_graph;
    out.first.assign(plan_.body_graphs + 2, 0);
    for (const location& home : plan_.cond_homes) ++out.first[plan_.graph_number(home) + 1];
    for (std::size_t n = 1; n < out.first.size(); ++n) out.first[n] += out.first[n - 1];
    out.conds.resize(plan_.cond_homes.size());
    std::vector<std::uint32_t> next(out.first.begin(), out.first.end() - 1);
    for (std::uint32_t c = 0; c < plan_.cond_homes.size(); ++c)
      out.conds[next[plan_.graph_number(plan_.cond_homes[c])]++] = c;
  }

  void body(const ir::body& b, location parent) {
    std::vector<std::uint32_t> step_of(b.nodes.size());
    // In IR order, except that a node waits for the nodes it depends on: an `after` may name a
    // later label. The checker refused cycles, so every node is in the order.
    for (std::uint32_t i : compiler::detail::dependency_order(*plan_.graph, b)) {
      const ir::node& n = b.nodes[i];
      step s;
      s.node = &n;
      s.parent = parent;
      dep_begin_.push_back(static_cast<std::uint32_t>(plan_.dep_steps.size()));
      for (auto d : plan_.graph->deps(n)) plan_.dep_steps.push_back(step_of[d]);
      auto index = static_cast<std::uint32_t>(plan_.steps.size());
      step_of[i] = index;
      plan_.steps.push_back(s);
      plan_.first_body.push_back(n.kind == ir::node_kind::conditional ? plan_.body_graphs : ir::none);
      if (n.kind != ir::node_kind::conditional) continue;
      plan_.cond_homes[n.cond] = parent;
      plan_.body_graphs += n.bodies_count;  // all of them before any nested one
      for (std::uint32_t k = 0; k < n.bodies_count; ++k) body(plan_.graph->bodies(n)[k], location{index, k});
    }
  }

  void find_late_readers() {
    const ir::graph& g = *plan_.graph;
    for (std::uint32_t s = 0; s < plan_.steps.size(); ++s) {
      const ir::node& n = *plan_.steps[s].node;
      if (n.kind != ir::node_kind::kernel) continue;
      for (const auto& a : g.args(n)) {
        if (a.expr >= g.exprs.size() || g.exprs[a.expr].op != ir::op::cond_ref) continue;
        std::uint32_t made_after = plan_.cond_homes[g.exprs[a.expr].index].step;  // the handle is made after this step
        if (made_after != ir::none && s < made_after) {
          plan_.late_readers.push_back(s);
          break;
        }
      }
    }
  }

  void find_port_edges_and_attributes() {
    const ir::graph& g = *plan_.graph;
    for (std::uint32_t s = 0; s < plan_.steps.size(); ++s) {
      const ir::node& n = *plan_.steps[s].node;
      if (n.attributes != ir::none) plan_.attributed.push_back(s);
      if (n.ports == ir::none) continue;
      for (const ir::port_edge& e : g.port_edges[n.ports]) {
        // steps[s].deps follows the node's dependencies: the dependency's step stands where e.dep
        // stands in g.deps(n).
        const auto deps = g.deps(n);
        auto k = static_cast<std::size_t>(std::find(deps.begin(), deps.end(), e.dep) - deps.begin());
        plan_.port_steps.push_back({plan_.steps[s].deps[k], s, e.port == ir::edge_port::launched});
      }
    }
  }

  explicit_plan plan_;
  std::vector<std::uint32_t> dep_begin_;  // by step: where its dependencies begin in dep_steps
};

}  // namespace

explicit_plan lower_explicit(const ir::graph& g) { return planner(g).run(); }

}  // namespace cgraph::plan
