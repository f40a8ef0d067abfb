#pragma once
// What both construction strategies do the same way: preparing values, cond handles, host
// slots, conditional-node parameters, child graphs, captured routines and repeat counters.
// The explicit builder (builder.cpp) and the capture builder (capture_builder.cpp) derive.

#include "built_graph.hpp"

namespace cgraph::detail {

class step_builder {
protected:
  explicit step_builder(built_graph& out);

  // Evaluates parameters and sizes the records; call first.
  void prepare();
  // The handles of every cond whose conditional node lives in graph `where`.
  void create_conds(plan::location where, cudaGraph_t graph);
  // A host node's slot, owned by a user object retained by `owner` (the graph being built).
  host_slot* make_host_slot(const ir::node& n, const node_values& v, cudaGraph_t owner, const where& at);
  // Checks the driver and fills the conditional-node parameters (phGraph_out comes back from CUDA).
  cudaGraphNodeParams conditional_params(const ir::node& n) const;
  // The child graph of a `call` node, built with the same strategy.
  std::shared_ptr<built_graph> build_child(const ir::node& n, const node_values& v) const;
  // The device memory a repeat's init and counter nodes share (allocated by the init node).
  void* repeat_count(const ir::node& n, const where& at);
  // The routine registered for a kernel node, or null.
  const captured_routine* routine_of(const ir::node& n) const;

  built_graph& g_;
  const ir::graph& ir_;
  const plan::explicit_plan& plan_;
  const ir::program& program_;
};

// Captures `routine` on a side stream into a new graph (the caller owns it: destroy_owned). Both strategies
// embed the result as a child graph node.
cudaGraph_t capture_routine(const captured_routine& routine, const node_values& v, cudaStreamCaptureMode mode,
                            const where& at);

// Builds with the capture strategy (capture_builder.cpp).
void capture_graph(built_graph& g);

}  // namespace cgraph::detail
