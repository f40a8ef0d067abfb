#pragma once
#include "built_graph.hpp"

#include <cgraph/runtime/graph.hpp>

namespace cgraph::detail {

struct exec_state {
  cudaGraphExec_t exec = nullptr;
  instantiate_options options;
  // The graph the exec was instantiated from: its node handles name the exec's nodes.
  std::shared_ptr<built_graph> origin;
  // The graph whose values the exec holds now (after a whole-graph update, a newer one). It
  // also keeps alive what the exec's nodes point at: host slots, counters, child graphs.
  std::shared_ptr<built_graph> current;
  // Per plan step, the values last applied to the exec (child graphs: their newest build).
  std::vector<node_values> applied;
  std::vector<std::optional<ir::value>> params;  // the parameter values last applied
  std::vector<std::shared_ptr<built_graph>> children;

  ~exec_state();
};

// Instantiates `g` (checking the result before anything is wrapped) and returns the exec.
cudaGraphExec_t instantiate(const built_graph& g, const instantiate_options& options);

update_result update(exec_state& s, const args& values);

}  // namespace cgraph::detail
