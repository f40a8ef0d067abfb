#pragma once
// The exec of a built graph, for the run-time path and generated code alike: instantiation
// (the result checked before anything is wrapped, a failure mapped to a .cgraph site), upload,
// launches fenced while the exec reads memory only this object keeps alive, and the one update
// policy and recovery rule:
//
//   1. per-node setters on the nodes whose values changed (the caller's `apply`);
//   2. if CUDA refuses one, the graph rebuilt with the new values and applied with
//      cudaGraphExecUpdate; 3. if that is refused too, a new instantiation.
//   An update that applied some nodes and then failed leaves the exec "unsettled": the next
//   update, whatever it changes (even nothing), goes to the whole graph, which puts every node
//   right.

#include <cgraph/runtime/backend/graph_state.hpp>
#include <cgraph/runtime/graph.hpp>

#include <cuda_runtime_api.h>

#include <map>
#include <memory>
#include <vector>

namespace cgraph::backend {

// Sets each node of `values` with `[[enabled(…)]]` (graph_state::enabled) on `exec`, whose
// nodes are `origin`'s: at instantiation, and after a whole-graph update.
void apply_enabled(cudaGraphExec_t exec, const graph_state& origin, const graph_state& values);

class exec_core {
public:
  exec_core(state_ptr from, const instantiate_options& options);
  exec_core(exec_core&&) noexcept;
  exec_core& operator=(exec_core&&) noexcept;
  ~exec_core();

  cudaGraphExec_t get() const { return exec_; }
  void upload(cudaStream_t stream);
  void launch(cudaStream_t stream);

  // The graph the exec was instantiated from: its node handles name the exec's nodes. They
  // were all read when it was instantiated (graph_state::resolve_nodes), so an update, on any
  // thread, reads them as they are.
  const graph_state& origin() const { return *origin_; }
  cudaGraphNode_t node(std::uint32_t step) const { return origin_->nodes[step]; }
  // The graph whose values the exec holds now (newer than origin after a whole-graph update).
  const state_ptr& current() const { return current_; }
  // False after an update failed half-way: the next update must go to the whole graph.
  bool settled() const { return settled_; }

  // Turns the node of `step` on or off for the launches after this call; false when CUDA
  // refuses. In a graph with `[[enabled]]` memset nodes it first waits for the last launch:
  // CUDA 13.0 (driver 580) sometimes leaves a memset node off in the next launch when it is
  // turned on while a launch of the exec is still running (scripts/repro/enabled_memset.cu,
  // 1 to 13% of tries on an H100; kernel and memcpy nodes were right in every try).
  bool set_enabled(std::uint32_t step, bool on) const;

  // Keeps `object` (a host slot, a child graph) alive for the launches that use step `step`
  // after a per-node update; the one it replaces is freed once no launch can need it.
  void keep(std::uint32_t step, std::shared_ptr<void> object);

  // The update policy above. `apply()` sets the changed nodes and returns false at the first
  // refusal; `rebuild()` returns the graph state built with the new values. Per-node setters
  // come first even when every node changed: a rebuild plus cudaGraphExecUpdate measured
  // 1.5–2× their cost per node (docs/performance.md, "update all").
  template <typename Apply, typename Rebuild>
  update_path update(Apply apply, Rebuild rebuild) {
    if (node_path_open()) {
      settled_ = false;  // until apply() has set every node
      if (apply()) {
        settled_ = true;
        return update_path::node_params;
      }
    }
    settled_ = false;
    update_path path = replace(rebuild());
    settled_ = true;
    return path;
  }

  // Applies a whole rebuilt graph: cudaGraphExecUpdate, else a new instantiation.
  update_path replace(state_ptr rebuilt);

private:
  void release() noexcept;
  // Whether per-node setters may be tried: the exec is settled (and no test refuses them).
  bool node_path_open() const noexcept;

  exec_handle exec_;
  instantiate_options options_;
  state_ptr origin_;
  state_ptr current_;
  bool settled_ = true;
  std::map<std::uint32_t, std::shared_ptr<void>> kept_;  // by step, see keep()
  std::vector<std::shared_ptr<void>> retired_;           // replaced, freed once the fence has passed
  event_handle fence_;                                   // the last launch, while one must be waited for
};

}  // namespace cgraph::backend
