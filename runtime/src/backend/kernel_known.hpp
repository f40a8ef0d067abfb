#pragma once
// The common case of kernel_node::add_checked and capture_checked (node_ops.hpp), inline: a
// kernel whose launch is known to pass, on the current device, without programmatic edges.
// The public functions are built from these, and the walkers inside the runtime (builder.cpp,
// capture_builder.cpp, generated_table.cpp) call them directly, so one piece of code adds the
// node either way. Called out of line, a graph's most common node paid about 20 instructions
// for the call's frame (host_work_bench, run 46). Not in the public header: it carries the
// test seam (seam.hpp), which users' generated code must not inline.

#include "seam.hpp"

#include <cgraph/runtime/backend/capture_session.hpp>
#include <cgraph/runtime/backend/node_ops.hpp>

namespace cgraph::backend::kernel_known {

// The node, added: no placement, no edge data, no launch check.
[[gnu::always_inline]] inline void add_plain(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_deps d,
                                             const kernel_node::params& p, const site& at) {
  CGRAPH_CUDA(cudaGraphAddKernelNode(&g.nodes[step], parent, d.data(), d.size(), &p), at);
}

[[gnu::always_inline]] inline void capture_plain(capture_session& c, unsigned k, std::uint32_t step,
                                                 const kernel_node::params& p, const site& at) {
  CGRAPH_CUDA(cudaLaunchKernel(p.func, p.gridDim, p.blockDim, p.kernelParams, p.sharedMemBytes, c.stream(k)), at);
  c.launched(k, step, at);
}

// kernel_node::add_checked, with its rare case (edge data) out of line.
[[gnu::always_inline]] inline void add(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_deps d,
                                       const kernel_node::params& p, const site& at) {
  if (g.has_port_edges(step)) [[unlikely]]
    return kernel_node::add_checked(g, step, parent, d, p, at);
  add_plain(g, step, parent, d, p, at);
}

// kernel_node::capture_checked, likewise.
[[gnu::always_inline]] inline void capture(capture_session& c, unsigned k, std::uint32_t step,
                                           const kernel_node::params& p, const site& at) {
  if (c.state().has_port_edges(step)) [[unlikely]]
    return kernel_node::capture_checked(c, k, step, p, at);
  capture_plain(c, k, step, p, at);
}

}  // namespace cgraph::backend::kernel_known
