#pragma once
// Where a walk makes a node: every node op (node_ops.hpp) takes the same values after its step
// in `add` and in `capture`, so a walk written against a placement calls
// place.make<Op>(step, values…). The capture walks (build_steps.hpp, step_builder::make_node;
// generated_table.cpp, make_row) issue their nodes on a capture stream this way. The explicit
// walks call Op::add themselves: through a placement that added to a graph, they ran the same
// host instructions (callgrind, fake CUDA) and built 2-4% slower on the device, in an A/B and
// in a whole run (docs/performance.md, run 66), so that placement was taken out. Inline to the
// last call: a placement is two values the walk already holds.

#include "kernel_known.hpp"

#include <cgraph/runtime/backend/capture_session.hpp>
#include <cgraph/runtime/backend/node_ops.hpp>

#include <utility>

namespace cgraph::backend {

// Issued on stream `stream` of the body that capture session `c` is capturing.
struct issue_on_stream {
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
