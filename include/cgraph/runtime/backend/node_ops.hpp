#pragma once
// One operations table per node kind: the only code that adds, captures or updates a node.
// Both the run-time path and generated code compute a kind's `params` and call these:
//
//   add      adds the node to `parent` after `deps` (the explicit strategy)
//   capture  issues it on stream `stream` of a capture session (the capture strategy)
//   set      changes it in an exec (per-node update); false when CUDA refuses, which the
//            caller answers with a whole-graph update
//   name     what it is, for messages
//
// Kernel, memcpy and memset nodes take a `device` (LANGUAGE.md §15): -1 for the current one, or
// the GPU to make the node on (backend/device.hpp). A capture adds such a node to the capturing
// graph in that device's context, as the explicit strategy does, since a launch on another
// device's stream cannot join the capture's streams.
//
// Each records the node's handle and site in the graph state under its plan step. A CUDA
// failure throws cuda_error naming the call and the site. Adding a node kind is one more
// struct here, its lowering and its printing.

#include <cgraph/runtime/backend/graph_state.hpp>
#include <cgraph/runtime/backend/list.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace cgraph::backend {

class capture_session;
using node_deps = list<cudaGraphNode_t>;

// A kernel launch (also the built-in repeat kernels). Captured with cudaLaunchKernel.
struct kernel_node {
  using params = cudaKernelNodeParams;
  static constexpr const char* name = "kernel";
  static void add(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_deps deps, const params& p, const site& at,
                  int device = -1);
  // `add` (on the current device) for a launch its caller knows to pass the launch check: the
  // kernel and configuration of a node it added before in this build. A graph mostly repeats
  // one launch; the compiler marks which (plan::launch_memory) in the rows every construction
  // path walks, so the build reads one flag against the check's nine comparisons.
  static void add_checked(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_deps deps, const params& p,
                          const site& at);
  static void capture(capture_session& c, unsigned stream, std::uint32_t step, const params& p, const site& at,
                      int device = -1);
  // `capture` for a launch its caller knows to pass the launch check, as add_checked.
  static void capture_checked(capture_session& c, unsigned stream, std::uint32_t step, const params& p, const site& at);
  static bool set(cudaGraphExec_t exec, cudaGraphNode_t node, const params& p);
  // `set` for a node whose kernel and launch configuration are the ones it last had on this
  // exec, which passed the launch check when they were given: only its arguments differ, so
  // the check is not made again (an update that writes parameters into arguments, a tenth of
  // its host work per node).
  static bool set_arguments(cudaGraphExec_t exec, cudaGraphNode_t node, const params& p);
  // Sets the parameters of the graph's node of `step` again (explicit_plan::late_readers).
  static void refresh(graph_state& g, std::uint32_t step, const params& p, const site& at);
  // `[[priority(N)]]` and `[[cluster(X, Y, Z)]]` on the graph's node of `step` (cluster x 0:
  // none), set once the graph is made, in both strategies.
  static void set_attributes(graph_state& g, std::uint32_t step, const int* priority, dim3 cluster, const site& at);
};

// `[[enabled(…)]]`: records the node's value for the exec (graph_state::enabled), once the
// graph is made.
void set_enabled(graph_state& g, std::uint32_t step, bool on);
// Turns a node of an exec on or off; false when CUDA refuses. Updates go through
// exec_core::set_enabled, which waits where CUDA needs it.
bool set_exec_enabled(cudaGraphExec_t exec, cudaGraphNode_t node, bool on);

struct memcpy_params {
  void* dst = nullptr;
  const void* src = nullptr;
  std::size_t bytes = 0;
};

// A 1D copy in any direction (cudaMemcpyDefault). Captured with cudaMemcpyAsync.
struct memcpy_node {
  using params = memcpy_params;
  static constexpr const char* name = "memcpy";
  static void add(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_deps deps, const params& p, const site& at,
                  int device = -1);
  static void capture(capture_session& c, unsigned stream, std::uint32_t step, const params& p, const site& at,
                      int device = -1);
  static bool set(cudaGraphExec_t exec, cudaGraphNode_t node, const params& p);
};

// A memset of 1-, 2- or 4-byte elements. cudaMemsetAsync writes bytes only, so a capture adds
// the node to the capturing graph.
struct memset_node {
  using params = cudaMemsetParams;
  static constexpr const char* name = "memset";
  static void add(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_deps deps, const params& p, const site& at,
                  int device = -1);
  static void capture(capture_session& c, unsigned stream, std::uint32_t step, const params& p, const site& at,
                      int device = -1);
  static bool set(cudaGraphExec_t exec, cudaGraphNode_t node, const params& p);
};

// A host callback (a slot from own_host_slot). Captured with cudaLaunchHostFunc.
struct host_node {
  using params = cudaHostNodeParams;
  static constexpr const char* name = "host callback";
  static void add(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_deps deps, const params& p, const site& at);
  static void capture(capture_session& c, unsigned stream, std::uint32_t step, const params& p, const site& at);
  static bool set(cudaGraphExec_t exec, cudaGraphNode_t node, const params& p);
};

// A child graph (CUDA embeds a clone of `p`); the caller keeps what the child's nodes point at
// (graph_state::children) alive.
struct child_node {
  using params = cudaGraph_t;
  static constexpr const char* name = "child graph";
  static void add(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_deps deps, params p, const site& at);
  static void capture(capture_session& c, unsigned stream, std::uint32_t step, params p, const site& at);
  static bool set(cudaGraphExec_t exec, cudaGraphNode_t node, params p);
};

// Event record and wait nodes (`record E;`, `wait E;`). In a capture they are added to the
// capturing graph (as memset is), so both strategies make the same node.
template <bool Wait>
struct event_node {
  using params = cudaEvent_t;
  static constexpr const char* name = Wait ? "event wait" : "event record";
  static void add(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_deps deps, params p, const site& at);
  static void capture(capture_session& c, unsigned stream, std::uint32_t step, params p, const site& at);
  static bool set(cudaGraphExec_t exec, cudaGraphNode_t node, params p);
};
using event_record_node = event_node<false>;
using event_wait_node = event_node<true>;

// Graph memory (`alloc`, `free`): an allocation node of `bytes` device memory on the current
// device, whose address is kept as allocation `index` of the graph state, and its free node.
// In a capture both are added to the capturing graph, so both strategies make the same node.
struct alloc_node {
  static constexpr const char* name = "alloc";
  static void add(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_deps deps, std::uint32_t index,
                  std::size_t bytes, const site& at);
  static void capture(capture_session& c, unsigned stream, std::uint32_t step, std::uint32_t index, std::size_t bytes,
                      const site& at);
};
struct free_node {
  static constexpr const char* name = "free";
  static void add(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_deps deps, std::uint32_t index,
                  const site& at);
  static void capture(capture_session& c, unsigned stream, std::uint32_t step, std::uint32_t index, const site& at);
};

// A conditional node (if, if/else, switch, while). Its body graphs, made by CUDA, are kept as
// bodies first_body… of the graph state. An exec cannot change one in place: a new launch
// value for its cond needs a whole-graph update.
struct conditional_node {
  static constexpr const char* name = "conditional";
  // What makes a conditional node: its cond's handle, its kind and how many bodies it has. The
  // 256-byte cudaGraphNodeParams is made from it inside add and capture, not by their callers:
  // made and copied in every conditional of generated C++, it was about 400 bytes of code
  // each, which a 1 000-conditional build runs through once (docs/performance.md, run 50).
  struct spec {
    cudaGraphConditionalHandle handle;
    ir::cond_kind kind;
    unsigned bodies;
  };
  // Both check first that the driver supports the kind (feature_unavailable where it does not).
  static void add(graph_state& g, std::uint32_t step, cudaGraph_t parent, node_deps deps, spec s,
                  std::uint32_t first_body, const site& at);
  static void capture(capture_session& c, unsigned stream, std::uint32_t step, spec s, std::uint32_t first_body,
                      const site& at);
};

}  // namespace cgraph::backend
