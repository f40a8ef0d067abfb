// The node operations tables (node_ops.hpp): every add-node, capture and exec-setter call.

#include "kernel_known.hpp"
#include "launch_check.hpp"
#include "seam.hpp"

#include "../compat.hpp"

#include <cgraph/runtime/backend/capture_session.hpp>
#include <cgraph/runtime/backend/device.hpp>
#include <cgraph/runtime/backend/node_ops.hpp>

namespace cgraph::backend {

namespace {

// A node's site is never recorded as it is added: generated code's state has a constant table
// of them, a run-time build works one out from its program (graph_state::step_site). In a
// capture, a node made by a stream call is found with capture_session::captured; one without a
// stream call is added with capture_session::add_node.

// An exec setter's call, refused without calling CUDA on a node that has no handle (a
// capture's node list that could not be read in order, graph_state::resolve_nodes): the
// update then goes to the whole graph.
template <typename Call>
bool set_on(cudaGraphNode_t node, Call call) {
  return node && CGRAPH_CUDA_STATUS(call()) == cudaSuccess;
}

}  // namespace

// ---- kernel ----------------------------------------------------------------------------------

namespace {
// A kernel node whose dependencies carry edge data (programmatic edges): only cudaGraphAddNode
// takes it.
cudaGraphNode_t add_with_edges(cudaGraph_t graph, node_deps d, list<cudaGraphEdgeData> edges,
                               const kernel_node::params& p, const site& at) {
  cudaGraphNodeParams node{};
  node.type = cudaGraphNodeTypeKernel;
  node.kernel.func = p.func;
  node.kernel.gridDim = p.gridDim;
  node.kernel.blockDim = p.blockDim;
  node.kernel.sharedMemBytes = p.sharedMemBytes;
  node.kernel.kernelParams = p.kernelParams;
  node.kernel.extra = p.extra;
  cudaGraphNode_t made = nullptr;
  CGRAPH_CUDA(cudaGraphAddNode(&made, graph, d.data(), edges.data(), d.size(), &node), at);
  return made;
}
}  // namespace

// Launch limits are checked before CUDA sees the node, so a bad value is a build error at its
// .cgraph line rather than a failed launch. An update that breaks them is refused here, and
// the rebuild it falls back to reports it where the node is added.
//
// Each of add and capture has a fast path for the common node, on the current device and
// without programmatic edges, and one out-of-line function for the rest: with a device scope
// (and its cleanup on a throw) in the same frame, every node paid for the scope it did not use
// (host_work_bench: 4-10 instructions a node fewer this way; docs/performance.md, run 35).
namespace {
[[gnu::noinline]] void add_placed(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_deps d,
                                  const kernel_node::params& p, const site& at, int device) {
  device_scope on(device, at);
  require_launch(p, at);
  if (!g.has_port_edges(step)) CGRAPH_CUDA(cudaGraphAddKernelNode(&g.nodes[step], parent, d.data(), d.size(), &p), at);
  else g.nodes[step] = add_with_edges(parent, d, g.edge_data(step, d), p, at);
}

// Programmatic dependencies: added to the capturing graph with their edge data, as the explicit
// strategy adds them (a launch has no place for edge data but cudaLaunchKernelEx's attributes,
// which describe only an edge from the previous kernel on the same stream). A placed kernel
// too, in its device's context.
[[gnu::noinline]] void capture_placed(capture_session& c, unsigned k, std::uint32_t step, const kernel_node::params& p,
                                      const site& at, int device) {
  {
    device_scope on(device, at);  // the limits of the device it runs on
    require_launch(p, at);
  }
  c.add_node(k, step, at, [&](cudaGraph_t graph, node_deps deps) {
    device_scope on(device, at);
    return add_with_edges(graph, deps, c.state().edge_data(step, deps), p, at);
  });
}
}  // namespace

// `add` is the launch check and then what add_checked does (kernel_known.hpp), `capture` the
// check and then what capture_checked does: one piece of code adds the node either way. One
// function with the check as a flag instead cost every kernel node 11 instructions: its ninth
// argument went to the stack (run 46).
void kernel_node::add(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_deps d, const params& p, const site& at,
                      int device) {
  if (device >= 0 || g.has_port_edges(step)) return add_placed(g, step, parent, d, p, at, device);
  require_launch(p, at);
  kernel_known::add_plain(g, step, parent, d, p, at);
}

void kernel_node::add_checked(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_deps d, const params& p,
                              const site& at) {
  if (g.has_port_edges(step)) return add_placed(g, step, parent, d, p, at, -1);
  kernel_known::add_plain(g, step, parent, d, p, at);
}

void kernel_node::capture(capture_session& c, unsigned k, std::uint32_t step, const params& p, const site& at,
                          int device) {
  if (device >= 0 || c.state().has_port_edges(step)) return capture_placed(c, k, step, p, at, device);
  require_launch(p, at);
  kernel_known::capture_plain(c, k, step, p, at);
}

void kernel_node::capture_checked(capture_session& c, unsigned k, std::uint32_t step, const params& p, const site& at) {
  if (c.state().has_port_edges(step)) return capture_placed(c, k, step, p, at, -1);
  kernel_known::capture_plain(c, k, step, p, at);
}

void kernel_node::refresh(graph_state& g, std::uint32_t step, const params& p, const site& at) {
  CGRAPH_CUDA(cudaGraphKernelNodeSetParams(g.node(step), &p), at);
}

void kernel_node::set_attributes(graph_state& g, std::uint32_t step, const int* priority, dim3 cluster, const site& at) {
  if (priority) {
    cudaLaunchAttributeValue v{};
    v.priority = *priority;
    CGRAPH_CUDA(cudaGraphKernelNodeSetAttribute(g.node(step), cudaLaunchAttributePriority, &v), at);
    g.node_priorities = true;
  }
  if (cluster.x) {
    cudaLaunchAttributeValue v{};
    v.clusterDim.x = cluster.x;
    v.clusterDim.y = cluster.y;
    v.clusterDim.z = cluster.z;
    CGRAPH_CUDA(cudaGraphKernelNodeSetAttribute(g.node(step), cudaLaunchAttributeClusterDimension, &v), at);
  }
}

void set_enabled(graph_state& g, std::uint32_t step, bool on) {
  g.enabled.emplace_back(step, on);
  cudaGraphNodeType type{};
  CGRAPH_CUDA(cudaGraphNodeGetType(g.node(step), &type), g.step_site(step));
  if (type == cudaGraphNodeTypeMemset) g.enabled_memsets = true;
}

bool set_exec_enabled(cudaGraphExec_t exec, cudaGraphNode_t node, bool on) {
  return set_on(node, [&] { return cudaGraphNodeSetEnabled(exec, node, on ? 1 : 0); });
}

bool kernel_node::set(cudaGraphExec_t exec, cudaGraphNode_t node, const params& p) {
  if (!launch_passes(p)) return false;
  return set_arguments(exec, node, p);
}

bool kernel_node::set_arguments(cudaGraphExec_t exec, cudaGraphNode_t node, const params& p) {
  return set_on(node, [&] { return cudaGraphExecKernelNodeSetParams(exec, node, &p); });
}

// ---- memcpy ----------------------------------------------------------------------------------

void memcpy_node::add(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_deps d, const params& p, const site& at,
                      int device) {
  device_scope on(device, at);
  CGRAPH_CUDA(cudaGraphAddMemcpyNode1D(&g.nodes[step], parent, d.data(), d.size(), p.dst, p.src, p.bytes, cudaMemcpyDefault),
              at);
}

void memcpy_node::capture(capture_session& c, unsigned k, std::uint32_t step, const params& p, const site& at,
                          int device) {
  if (device < 0) {
    CGRAPH_CUDA(cudaMemcpyAsync(p.dst, p.src, p.bytes, cudaMemcpyDefault, c.stream(k)), at);
    c.captured(k, step, at);
    return;
  }
  c.add_node(k, step, at, [&](cudaGraph_t graph, node_deps d) {
    device_scope on(device, at);
    cudaGraphNode_t node = nullptr;
    CGRAPH_CUDA(cudaGraphAddMemcpyNode1D(&node, graph, d.data(), d.size(), p.dst, p.src, p.bytes, cudaMemcpyDefault), at);
    return node;
  });
}

bool memcpy_node::set(cudaGraphExec_t exec, cudaGraphNode_t node, const params& p) {
  return set_on(node, [&] { return cudaGraphExecMemcpyNodeSetParams1D(exec, node, p.dst, p.src, p.bytes, cudaMemcpyDefault); });
}

// ---- memset ----------------------------------------------------------------------------------

void memset_node::add(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_deps d, const params& p, const site& at,
                      int device) {
  device_scope on(device, at);
  CGRAPH_CUDA(cudaGraphAddMemsetNode(&g.nodes[step], parent, d.data(), d.size(), &p), at);
}

void memset_node::capture(capture_session& c, unsigned k, std::uint32_t step, const params& p, const site& at,
                          int device) {
  c.add_node(k, step, at, [&](cudaGraph_t graph, node_deps d) {
    device_scope on(device, at);
    cudaGraphNode_t node = nullptr;
    CGRAPH_CUDA(cudaGraphAddMemsetNode(&node, graph, d.data(), d.size(), &p), at);
    return node;
  });
}

bool memset_node::set(cudaGraphExec_t exec, cudaGraphNode_t node, const params& p) {
  return set_on(node, [&] { return cudaGraphExecMemsetNodeSetParams(exec, node, &p); });
}

// ---- host ------------------------------------------------------------------------------------

void host_node::add(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_deps d, const params& p, const site& at) {
  CGRAPH_CUDA(cudaGraphAddHostNode(&g.nodes[step], parent, d.data(), d.size(), &p), at);
}

void host_node::capture(capture_session& c, unsigned k, std::uint32_t step, const params& p, const site& at) {
  CGRAPH_CUDA(cudaLaunchHostFunc(c.stream(k), p.fn, p.userData), at);
  c.captured(k, step, at);
}

bool host_node::set(cudaGraphExec_t exec, cudaGraphNode_t node, const params& p) {
  return set_on(node, [&] { return cudaGraphExecHostNodeSetParams(exec, node, &p); });
}

// ---- child graph -----------------------------------------------------------------------------

void child_node::add(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_deps d, params p, const site& at) {
  CGRAPH_CUDA(cudaGraphAddChildGraphNode(&g.nodes[step], parent, d.data(), d.size(), p), at);
}

void child_node::capture(capture_session& c, unsigned k, std::uint32_t step, params p, const site& at) {
  c.add_node(k, step, at, [&](cudaGraph_t graph, node_deps d) {
    cudaGraphNode_t node = nullptr;
    CGRAPH_CUDA(cudaGraphAddChildGraphNode(&node, graph, d.data(), d.size(), p), at);
    return node;
  });
}

bool child_node::set(cudaGraphExec_t exec, cudaGraphNode_t node, params p) {
  return set_on(node, [&] { return cudaGraphExecChildGraphNodeSetParams(exec, node, p); });
}

// ---- event record and wait -------------------------------------------------------------------

namespace {
template <bool Wait>
cudaGraphNode_t add_event_node(cudaGraph_t graph, node_deps d, cudaEvent_t e, const site& at) {
  cudaGraphNode_t node = nullptr;
  if constexpr (Wait) CGRAPH_CUDA(cudaGraphAddEventWaitNode(&node, graph, d.data(), d.size(), e), at);
  else CGRAPH_CUDA(cudaGraphAddEventRecordNode(&node, graph, d.data(), d.size(), e), at);
  return node;
}
}  // namespace

template <bool Wait>
void event_node<Wait>::add(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_deps d, params p, const site& at) {
  g.nodes[step] = add_event_node<Wait>(parent, d, p, at);
}

template <bool Wait>
void event_node<Wait>::capture(capture_session& c, unsigned k, std::uint32_t step, params p, const site& at) {
  c.add_node(k, step, at, [&](cudaGraph_t graph, node_deps d) { return add_event_node<Wait>(graph, d, p, at); });
}

template <bool Wait>
bool event_node<Wait>::set(cudaGraphExec_t exec, cudaGraphNode_t node, params p) {
  return set_on(node, [&] {
    return Wait ? cudaGraphExecEventWaitNodeSetEvent(exec, node, p) : cudaGraphExecEventRecordNodeSetEvent(exec, node, p);
  });
}

template struct event_node<false>;
template struct event_node<true>;

// ---- graph memory ------------------------------------------------------------------------------

namespace {
cudaGraphNode_t add_alloc_node(graph_state& g, cudaGraph_t graph, node_deps d, std::uint32_t index, std::size_t bytes,
                               const site& at) {
  int device = 0;
  CGRAPH_CUDA(cudaGetDevice(&device), at);
  cudaMemAllocNodeParams p{};
  p.poolProps.allocType = cudaMemAllocationTypePinned;
  p.poolProps.location.type = cudaMemLocationTypeDevice;
  p.poolProps.location.id = device;
  p.bytesize = bytes;
  cudaGraphNode_t node = nullptr;
  CGRAPH_CUDA(cudaGraphAddMemAllocNode(&node, graph, d.data(), d.size(), &p), at);
  g.allocations[index] = p.dptr;
  return node;
}
}  // namespace

void alloc_node::add(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_deps d, std::uint32_t index,
                     std::size_t bytes, const site& at) {
  g.nodes[step] = add_alloc_node(g, parent, d, index, bytes, at);
}

void alloc_node::capture(capture_session& c, unsigned k, std::uint32_t step, std::uint32_t index, std::size_t bytes,
                         const site& at) {
  c.add_node(k, step, at, [&](cudaGraph_t graph, node_deps d) { return add_alloc_node(c.state(), graph, d, index, bytes, at); });
}

void free_node::add(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_deps d, std::uint32_t index, const site& at) {
  CGRAPH_CUDA(cudaGraphAddMemFreeNode(&g.nodes[step], parent, d.data(), d.size(), g.allocations[index]), at);
}

void free_node::capture(capture_session& c, unsigned k, std::uint32_t step, std::uint32_t index, const site& at) {
  c.add_node(k, step, at, [&](cudaGraph_t graph, node_deps d) {
    cudaGraphNode_t node = nullptr;
    CGRAPH_CUDA(cudaGraphAddMemFreeNode(&node, graph, d.data(), d.size(), c.state().allocations[index]), at);
    return node;
  });
}

// ---- conditional -----------------------------------------------------------------------------

namespace {
// Throws feature_unavailable where the driver cannot make a conditional of kind `kind`. Out of
// line: its messages in make's frame cost every conditional a dozen instructions of spills.
[[gnu::noinline, gnu::cold]] void require_conditional(ir::cond_kind kind) {
  bool needs_12_8 = kind == ir::cond_kind::if_else || kind == ir::cond_kind::switch_cases;
  detail::require_driver(kind == ir::cond_kind::if_else        ? "an 'if' with 'else'"
                         : kind == ir::cond_kind::switch_cases ? "a 'switch'"
                         : kind == ir::cond_kind::while_loop   ? "a 'while' loop"
                                                               : "an 'if'",
                         needs_12_8 ? detail::if_else_switch_version : detail::conditional_nodes_version);
}
}  // namespace

namespace {
// The parameters of a conditional node of `s` in `g`'s conditional_params, once the driver is
// known to make its kind.
cudaGraphNodeParams& node_params_of(graph_state& g, conditional_node::spec s) {
  if (detail::driver_version() < detail::if_else_switch_version) [[unlikely]]
    require_conditional(s.kind);  // an older driver has some kinds only
  cudaGraphNodeParams& p = g.conditional_params;
  p.type = cudaGraphNodeTypeConditional;
  p.conditional.handle = s.handle;
  // CUDA's type of each ir::cond_kind, in its order: a load, where comparing was 11 instructions.
  static constexpr cudaGraphConditionalNodeType cuda_type[] = {cudaGraphCondTypeIf, cudaGraphCondTypeIf,
                                                              cudaGraphCondTypeWhile, cudaGraphCondTypeSwitch};
  static_assert(static_cast<int>(ir::cond_kind::if_then) == 0 && static_cast<int>(ir::cond_kind::if_else) == 1 &&
                static_cast<int>(ir::cond_kind::while_loop) == 2 && static_cast<int>(ir::cond_kind::switch_cases) == 3);
  p.conditional.type = cuda_type[static_cast<unsigned>(s.kind)];
  p.conditional.size = s.bodies;
  p.conditional.phGraph_out = nullptr;  // CUDA's output
  return p;
}

// The body graphs CUDA made for the conditional of `step` (into `p`) become bodies first…
void keep_bodies(graph_state& g, std::uint32_t step, std::uint32_t first, const cudaGraphNodeParams& p) {
  for (unsigned k = 0; k < p.conditional.size; ++k) {
    g.bodies[first + k] = p.conditional.phGraph_out[k];
    g.body_steps[first + k] = step;
  }
}
}  // namespace

void conditional_node::add(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_deps d, spec s,
                           std::uint32_t first_body, const site& at) {
  cudaGraphNodeParams& p = node_params_of(g, s);
  CGRAPH_CUDA(cudaGraphAddNode(&g.nodes[step], parent, d.data(), nullptr, d.size(), &p), at);
  keep_bodies(g, step, first_body, p);
}

void conditional_node::capture(capture_session& c, unsigned k, std::uint32_t step, spec s, std::uint32_t first_body,
                               const site& at) {
  cudaGraphNodeParams& p = node_params_of(c.state(), s);
  c.add_graph_node(k, step, p, at);
  keep_bodies(c.state(), step, first_body, p);
}

}  // namespace cgraph::backend
