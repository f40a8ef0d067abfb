#pragma once
#include "built_graph.hpp"

#include <functional>
#include <map>
#include <string>
#include <unordered_map>

#include <cgraph/runtime/graph.hpp>
#include <cgraph/runtime/testing.hpp>

namespace cgraph::detail {

struct exec_state {
  cudaGraphExec_t exec = nullptr;
  instantiate_options options;
  // The graph the exec was instantiated from: its node handles name the exec's nodes.
  std::shared_ptr<built_graph> origin;
  // The graph whose values the exec holds now (after a whole-graph update, a newer one). It
  // also keeps alive what the exec's nodes point at: host slots, counters, child graphs.
  std::shared_ptr<built_graph> current;
  // Values a per-node update applied since `current` was built, by plan step. Any other
  // step holds the values `current` was built with. Copied only when changed: copying every
  // node's values at instantiation cost 10% on top of CUDA's own instantiate.
  std::unordered_map<std::uint32_t, node_values> updated_values;
  // Steps a failed update left holding values other than `params` give (it applied them before
  // CUDA refused another node and the fallbacks failed): the next update compares them.
  std::vector<std::uint32_t> unsettled;
  std::vector<std::optional<ir::value>> params;  // the parameter values last applied
  std::vector<ir::value> pool;                   // the expression pool evaluated with them
  std::vector<std::shared_ptr<built_graph>> children;
  // Host slots made by per-node updates. Unlike a graph's own slots, no CUDA user object keeps
  // them alive for launches still in flight, so launches are fenced (below) once any exists,
  // and the destructor waits for the last one before freeing them.
  std::map<std::uint32_t, std::unique_ptr<host_slot>> updated_slots;  // by plan step
  std::vector<std::unique_ptr<host_slot>> retired_slots;  // replaced; freed once no launch needs them
  cudaEvent_t last_launch = nullptr;

  // Whether launches must be fenced: the exec points at memory only this object owns (updated
  // host slots, or a graph other than the one it was instantiated from, after a whole-graph
  // update).
  bool needs_fence() const { return !updated_slots.empty() || current != origin; }
  // The values last applied to plan step `step`.
  const node_values& applied(std::uint32_t step) const {
    auto it = updated_values.find(step);
    return it != updated_values.end() ? it->second : current->records[step].values;
  }
  void launched(cudaStream_t stream);
  // Makes `slot` the one of plan step `step`, retiring the previous one.
  void replace_slot(std::uint32_t step, std::unique_ptr<host_slot> slot);

  ~exec_state();
};

// The calling thread's refusals set by cgraph::testing::refuse_updates (for generated execs).
const testing::update_refusals& test_refusals();

// Instantiates `graph` (checking the result before anything is wrapped); `locate` names the
// .cgraph place of the node CUDA blames, or of the graph when it is given no node (nullptr).
cudaGraphExec_t instantiate_graph(cudaGraph_t graph, const instantiate_options& options,
                                  const std::function<std::string(cudaGraphNode_t)>& locate);

// Instantiates `g` (checking the result before anything is wrapped) and returns the exec.
cudaGraphExec_t instantiate(const built_graph& g, const instantiate_options& options);

update_result update(exec_state& s, const args& values);

}  // namespace cgraph::detail
