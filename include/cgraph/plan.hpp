#pragma once
// Construction plans: the ordered steps that build one graph. The runtime executes a plan; the
// code generator (later) prints the same plan as C++, so both build the same graph.

#include <cgraph/ir.hpp>

#include <cstdint>
#include <vector>

namespace cgraph::plan {

// Where a step's node goes: the root graph, or body `body` of the conditional made by step
// `step`.
struct location {
  std::uint32_t step = ir::none;  // ir::none: the root graph
  std::uint32_t body = 0;

  friend bool operator==(location, location) = default;
};

// One "add node" step of the explicit strategy.
struct step {
  const ir::node* node = nullptr;
  location parent;
  std::vector<std::uint32_t> deps;  // earlier steps, all in the same parent
};


struct explicit_plan {
  const ir::graph* graph = nullptr;
  std::vector<step> steps;      // depth-first: a conditional, then its bodies, then what follows
  // By cond index: the graph whose conditional node the cond drives. The runtime creates the
  // handles of a graph as soon as that graph exists, before any node is added to it.
  std::vector<location> cond_homes;
  std::uint32_t body_graphs = 0;  // number of body graphs all conditionals create
};

explicit_plan lower_explicit(const ir::graph& g);

}  // namespace cgraph::plan
