#pragma once
// The CUDA side of one built graph, the same for the run-time path and for generated code:
// the graph, a node handle and a .cgraph site per plan step, the body graphs of conditional
// nodes, cond handles, repeat counters and child graphs. Execs share ownership, since their
// launches read what it owns.

#include <cgraph/compiler/ir.hpp>
#include <cgraph/compiler/plan.hpp>
#include <cgraph/runtime/backend/handle.hpp>
#include <cgraph/runtime/backend/list.hpp>
#include <cgraph/runtime/backend/site.hpp>

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace cgraph::backend {

struct graph_state {
  graph_state(std::size_t steps, std::size_t bodies, std::size_t conds, std::size_t allocations = 0);
  graph_state(const graph_state&) = delete;
  graph_state& operator=(const graph_state&) = delete;
  virtual ~graph_state();

  graph_handle graph;
  site graph_site;                                     // the `graph` declaration
  // nodes, bodies, body_steps and conds are spans of one block the state allocates as it is
  // made, sized by the constructor's counts and zeroed: one allocation a build where a list each
  // was four for a graph with conditionals (host_work_generated, run 75).
  //
  // By plan step. After a capture, some are read only when first needed (defer_reads): read
  // them through node(), or call resolve_nodes() first. A span's elements can be written
  // through a const state, which that reading needs.
  std::span<cudaGraphNode_t> nodes;
  // By plan step, the statement that made it: generated code's constant table (emit-cpp writes
  // one per graph), set before the build. A run-time build and the table form have none and
  // work a site out when an error needs one (step_site): a build writes nothing per node for its
  // error reports, which only a failure reads (32 bytes a node were most of a build's writes).
  std::span<const site> sites;
  std::span<cudaGraph_t> bodies;                       // by body index (owned by their conditional node)
  std::span<std::uint32_t> body_steps;                 // by body index: the conditional's step
  std::span<cudaGraphConditionalHandle> conds;         // by cond index
  // By cond index, a repeat's iteration count; empty until the first is made (repeat_count), so
  // a graph without `repeat` zeroes and destroys no list of them.
  std::vector<device_memory> repeat_counts;
  // By plan step, the child-graph nodes' states; empty until the first is set (set_child), so a
  // graph without child nodes makes and zeroes no list of them.
  std::vector<std::shared_ptr<graph_state>> children;
  void set_child(std::uint32_t step, std::shared_ptr<graph_state> child) {
    if (children.empty()) children.resize(nodes.size());
    children[step] = std::move(child);
  }
  const graph_state* child_at(std::uint32_t step) const {
    return step < children.size() ? children[step].get() : nullptr;
  }
  // By allocation (`alloc`): the address its node got, fixed for the graph's lifetime. A graph
  // that allocates is never applied to an exec by cudaGraphExecUpdate: its exec's allocations
  // would keep their addresses while its kernels took the new graph's.
  std::vector<void*> allocations;
  // Nodes with `[[enabled(…)]]` and their values at build; an exec made from this state, or
  // updated to it as a whole, sets each (cudaGraphNodeSetEnabled). The exec needs node
  // priorities on (cudaGraphInstantiateFlagUseNodePriority) when some node has one.
  std::vector<std::pair<std::uint32_t, bool>> enabled;
  // Some node of `enabled` is a memset node: the exec then waits for its last launch before it
  // turns a node on or off (exec_core::set_enabled says why).
  bool enabled_memsets = false;
  bool node_priorities = false;
  // The graph's programmatic edges, ordered by `to` (the plan's; generated code's constant
  // array): set before the build, they outlive it. Kernel nodes make theirs as they are added.
  std::span<const plan::port_step> port_edges;
  // Where conditional_node makes each conditional's parameters: zeroed once, then only the
  // conditional's own fields written (CUDA asks the union's other bytes to be zero, and writes
  // only phGraph_out). Zeroing all 256 bytes for each conditional was about 37 instructions
  // (host_work_bench, run 63).
  cudaGraphNodeParams conditional_params{};

  // The graph a node goes into, numbered as a plan's rows number them (the table form's
  // table_node::graph, the run-time path's step_row::graph): 0 the root, b + 1 body b.
  cudaGraph_t graph_numbered(std::uint32_t n) const { return n == 0 ? graph.get() : bodies[n - 1]; }
  // The node handles of steps[0, count), a node's dependencies: one (a chain's) read where it is
  // kept, none as none, more copied into `gathered` (the caller's, reused from node to node).
  // Valid until the next call with `gathered`. Inline: every node of an explicit build asks
  // (called, it was 5 instructions a node of a chain's); the copy is not, so the walks' loops
  // keep their registers.
  [[gnu::always_inline]] list<cudaGraphNode_t> step_nodes(const std::uint32_t* steps, std::uint32_t count,
                                                          std::vector<cudaGraphNode_t>& gathered) const {
    if (count == 1) return {&nodes[steps[0]], 1};
    if (count == 0) return {};  // a body's first node
    return gather_nodes(steps, count, gathered);
  }
  list<cudaGraphNode_t> gather_nodes(const std::uint32_t* steps, std::uint32_t count,
                                     std::vector<cudaGraphNode_t>& gathered) const;

  // The edge data of step's dependencies `deps`, one per dependency, programmatic where a port
  // edge of step names it; empty when step has none. Valid until the next call.
  list<cudaGraphEdgeData> edge_data(std::uint32_t step, list<cudaGraphNode_t> deps);
  // Whether a port edge enters step. Inline: most graphs have none, and every node asks.
  bool has_port_edges(std::uint32_t step) const { return !port_edges.empty() && port_edge_enters(step); }

  // A node a capture made: its step, the graph it went into (numbered as graph_numbered numbers
  // them: 0 the root, b + 1 body b) and whether its handle is known yet, in 8 bytes: a capture
  // writes one a node, and copies them all once.
  struct made_node {
    std::uint32_t step;
    std::uint32_t tag;  // graph << 1 | known (a capture keeps its open graph's tag: tag_of)
    static constexpr std::uint32_t tag_of(std::uint32_t graph) { return graph << 1; }
    std::uint32_t graph() const { return tag >> 1; }
    bool known() const { return (tag & 1) != 0; }
  };
  // `made`: the nodes of every graph a capture made (its root and bodies, all ended), in the
  // order they were made. Those not known get their handles when the graph is instantiated
  // (exec_core), or earlier where a build-time setter or an error report needs one
  // (resolve_nodes), in one cudaGraphGetNodes a graph: a build makes the calls a hand-written
  // capture makes. Handed over once, when the root's capture ends: a body's nodes handed over as
  // the body ended were copied out of the session's list, about 75 host instructions of every
  // captured conditional (host_work_generated, run 71). Nothing to do when all are known.
  void defer_reads(std::span<const made_node> made);
  // Reads the handles defer_reads left, once. Every reader of `nodes` after a build calls it,
  // or node(), except an exec core, whose graph was read when it was instantiated. So the read
  // runs only on the thread that uses the graph (a `graph` is used by one thread at a time),
  // never on an exec's, and needs no lock. Throws cuda_error if CUDA fails to list a graph's
  // nodes (they are read again at the next need).
  void resolve_nodes() const {
    if (unread_) read_deferred(false);
  }
  cudaGraphNode_t node(std::uint32_t step) const {
    resolve_nodes();
    return nodes[step];
  }

  // Whether CUDA lets this graph have only one exec at a time: it holds conditional or memory
  // nodes, itself or in a child it embeds (CUDA 13.0 refuses a second instantiation of such a
  // graph while the first exec lives, with cudaErrorNotSupported and no more said).
  bool one_exec_at_a_time() const;
  // The execs instantiated from this graph and not yet destroyed (exec_core counts them), so
  // that the refusal above can be explained. Atomic: execs may be destroyed on other threads.
  std::atomic<std::uint32_t> live_execs{0};

  // The .cgraph site of step `step`'s node (for an error report).
  virtual site step_site(std::uint32_t step) const { return step < sites.size() ? sites[step] : site{}; }
  // The .cgraph site of a node of this graph or of a child it embeds ("" when unknown).
  std::string site_of(cudaGraphNode_t node) const;
  // The body graphs of a conditional node of this graph or of a child it embeds (empty for any
  // other node).
  std::vector<cudaGraph_t> conditional_bodies(cudaGraphNode_t node) const;

private:
  bool port_edge_enters(std::uint32_t step) const;  // has_port_edges, for a graph that has some
  void read_deferred(bool quiet) const;

  std::unique_ptr<std::byte[]> storage_;  // the block nodes, bodies, body_steps and conds view
  std::vector<cudaGraphEdgeData> edge_data_;  // edge_data()'s, reused
  mutable std::vector<made_node> deferred_made_;  // defer_reads' nodes, until they are read
  mutable bool unread_ = false;
};

using state_ptr = std::shared_ptr<graph_state>;

// Makes `g.graph` (the explicit strategy; a capture makes it when it ends).
void create_graph(graph_state& g, const site& at);

// Creates the handle of cond `cond` in `graph` (the graph holding its conditional node):
// `value` is set at every launch when `has_default`.
void create_cond(graph_state& g, std::uint32_t cond, cudaGraph_t graph, unsigned value, bool has_default, const site& at);
// create_cond for each of `conds` (generated code's constant list of a graph's conds, in cond
// order): one call for them all, where a call each was about 20 host instructions of every
// captured conditional's (host_work_generated, run 71).
struct cond_init {
  std::uint32_t cond;
  unsigned value;
  bool has_default;
  site at;
};
void create_conds(graph_state& g, cudaGraph_t graph, std::span<const cond_init> conds);

// The device counter a `repeat` (cond `cond`) counts iterations in, allocated once.
void* repeat_count(graph_state& g, std::uint32_t cond, const site& at);

// The built-in kernels of `repeat` (runtime/src/backend/repeat_counter.cu).
const void* repeat_init_function();
const void* repeat_counter_function();

// A host node's user data: a callable and its arguments, never changed once made (an update
// makes a new one, so launches already queued keep the arguments they were given).
struct host_slot {
  virtual ~host_slot() = default;
  virtual void run() = 0;
};
// The host-node function of every slot; exceptions never cross into the driver.
void CUDART_CB run_host_slot(void* slot);
// Hands `slot` to a CUDA user object retained by `owner` (the root graph being built), so the
// graph and every exec made from it keep it alive; returns the host-node parameters.
cudaHostNodeParams own_host_slot(std::unique_ptr<host_slot> slot, cudaGraph_t owner, const site& at);
// Host-node parameters for a slot someone else keeps alive (an exec's per-node update).
inline cudaHostNodeParams borrow_host_slot(host_slot* slot) { return cudaHostNodeParams{run_host_slot, slot}; }

}  // namespace cgraph::backend
