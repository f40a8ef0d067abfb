#pragma once
// Where a walk makes a node, so that one dispatch by node kind serves both strategies: every
// node op (node_ops.hpp) takes the same values after its step in `add` and in `capture`, so a
// walk written against a placement calls place.make<Op>(step, values…) and gets Op::add into a
// graph after the node's dependencies (explicit), or Op::capture on a stream of a capture
// session (capture). The run-time walks (build_steps.hpp, step_builder::make_node) and the
// table form's (generated_table.cpp) make their kinds this way. Inline to the last call: a
// placement is two or three values the walk already holds.

#include "kernel_known.hpp"

#include <cgraph/runtime/backend/capture_session.hpp>
#include <cgraph/runtime/backend/node_ops.hpp>

#include <utility>

namespace cgraph::backend {

// Added to graph `parent` (the root or a body) of `g`, after `deps`.
struct add_to_graph {
  static constexpr bool capturing = false;
  graph_state& g;
  cudaGraph_t parent;
  node_deps deps;

  template <typename Op, typename... Values>
  [[gnu::always_inline]] void make(std::uint32_t step, Values&&... values) const {
    Op::add(g, step, parent, deps, std::forward<Values>(values)...);
  }
  // The root graph being built, which owns what a host node's slot holds.
  cudaGraph_t root() const { return g.graph.get(); }
};

// Issued on stream `stream` of the body that capture session `c` is capturing.
struct issue_on_stream {
  static constexpr bool capturing = true;
  capture_session& c;
  unsigned stream;

  template <typename Op, typename... Values>
  [[gnu::always_inline]] void make(std::uint32_t step, Values&&... values) const {
    Op::capture(c, stream, step, std::forward<Values>(values)...);
  }
  cudaGraph_t root() const { return c.root(); }
};

// kernel_known's add and capture (a launch known to pass the launch check) as a node op.
struct known_kernel_node {
  [[gnu::always_inline]] static void add(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_deps deps,
                                         const kernel_node::params& p, const site& at) {
    kernel_known::add(g, step, parent, deps, p, at);
  }
  [[gnu::always_inline]] static void capture(capture_session& c, unsigned stream, std::uint32_t step,
                                             const kernel_node::params& p, const site& at) {
    kernel_known::capture(c, stream, step, p, at);
  }
};

}  // namespace cgraph::backend
