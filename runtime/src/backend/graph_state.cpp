// The graph state every build fills, cond handles, repeat counters and host slots.

#include "seam.hpp"

#include "../compat.hpp"

#include <cgraph/runtime/backend/graph_state.hpp>

#include <algorithm>
#include <numeric>

#include <cstdio>
#include <cstring>
#include <exception>

namespace cgraph::backend {

// The block: nodes, bodies and conds (8 bytes each), then body_steps (4), zeroed. Every type in
// it is trivial, so the bytes of a `new std::byte[]` hold them. Its size is what the nodes'
// list alone was for a graph without conditionals: with room for a capture's made nodes too,
// twice that, the explicit 100-node chains read 1.10-1.14 in run 75's whole run, and 1.00-1.05
// in the four runs after the room was taken out.
graph_state::graph_state(std::size_t steps, std::size_t body_count, std::size_t cond_count, std::size_t allocation_count)
    : allocations(allocation_count, nullptr) {
  static_assert(sizeof(cudaGraphNode_t) == 8 && sizeof(cudaGraph_t) == 8 && sizeof(cudaGraphConditionalHandle) == 8);
  const std::size_t bytes = (steps + body_count + cond_count) * 8 + body_count * 4;
  if (bytes == 0) return;
  storage_.reset(new std::byte[bytes]);
  std::memset(storage_.get(), 0, bytes);
  std::byte* at = storage_.get();
  auto take = [&at]<typename T>(T*, std::size_t n) {
    std::span<T> s(reinterpret_cast<T*>(at), n);
    at += n * sizeof(T);
    return s;
  };
  nodes = take(static_cast<cudaGraphNode_t*>(nullptr), steps);
  bodies = take(static_cast<cudaGraph_t*>(nullptr), body_count);
  conds = take(static_cast<cudaGraphConditionalHandle*>(nullptr), cond_count);
  body_steps = take(static_cast<std::uint32_t*>(nullptr), body_count);
}

graph_state::~graph_state() = default;

bool graph_state::one_exec_at_a_time() const {
  if (!bodies.empty() || !allocations.empty()) return true;
  for (const auto& child : children)
    if (child && child->one_exec_at_a_time()) return true;
  return false;
}

// Both run while an error is reported: they read what they can, and throw nothing of their own.
std::string graph_state::site_of(cudaGraphNode_t node) const {
  if (!node) return {};
  if (unread_) read_deferred(true);
  for (std::uint32_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i] == node) return step_site(i).str();
    if (const graph_state* child = child_at(i))
      if (auto s = child->site_of(node); !s.empty()) return s;
  }
  return {};
}

std::vector<cudaGraph_t> graph_state::conditional_bodies(cudaGraphNode_t node) const {
  std::vector<cudaGraph_t> out;
  if (unread_) read_deferred(true);
  for (std::uint32_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i] == node) {
      for (std::size_t b = 0; b < bodies.size(); ++b)
        if (body_steps[b] == i && bodies[b]) out.push_back(bodies[b]);
      return out;
    }
    if (const graph_state* child = child_at(i))
      if (out = child->conditional_bodies(node); !out.empty()) return out;
  }
  return out;
}

void graph_state::defer_reads(std::span<const made_node> made) {
  if (std::all_of(made.begin(), made.end(), [](const made_node& m) { return m.known(); })) return;
  deferred_made_.assign(made.begin(), made.end());
  unread_ = true;
}

// One call per graph that holds a node not known, with room for one node more than were made
// in it: a graph that holds any other number of nodes returns a count other than its made ones.
// CUDA lists a graph's nodes in the order they were made; its documentation does not promise
// that, so it is checked: the count must match, and every node whose handle is known (read at
// once, or added to the graph) must stand in its place. If the check fails, that graph's steps
// keep no handle: an update of them falls back to the whole graph, and their errors name the
// graph. If a call fails, the graphs not read yet stay deferred, to be read at the next need,
// and the failure is thrown (or, for `quiet`, left for then).
void graph_state::read_deferred(bool quiet) const {
  // The made nodes by graph, each graph's in the order made: a counting sort of their indices.
  const std::size_t graphs = bodies.size() + 1;
  std::vector<std::uint32_t> first(graphs + 1, 0);
  for (const made_node& m : deferred_made_) ++first[m.graph() + 1];
  std::partial_sum(first.begin(), first.end(), first.begin());
  std::vector<std::uint32_t> order(deferred_made_.size());
  {
    std::vector<std::uint32_t> next(first.begin(), first.end() - 1);
    for (std::uint32_t i = 0; i < deferred_made_.size(); ++i) order[next[deferred_made_[i].graph()]++] = i;
  }
  std::vector<cudaGraphNode_t> read;
  for (std::uint32_t n = 0; n < graphs; ++n) {
    const std::uint32_t* made = order.data() + first[n];
    const std::size_t made_count = first[n + 1] - first[n];
    auto made_node_at = [&](std::size_t j) -> const made_node& { return deferred_made_[made[j]]; };
    if (std::all_of(made, made + made_count, [&](std::uint32_t i) { return deferred_made_[i].known(); })) continue;
    std::size_t count = made_count + 1;
    read.resize(count);
    const cudaError_t status = CGRAPH_CUDA_STATUS(cudaGraphGetNodes(graph_numbered(n), read.data(), &count));
    if (status != cudaSuccess) {
      std::erase_if(deferred_made_, [n](const made_node& m) { return m.graph() < n; });  // those were read
      if (quiet) {
        (void)cudaGetLastError();
        return;
      }
      check(status, "cudaGraphGetNodes (reading the nodes a capture made)", graph_site);
    }
    bool in_order = count == made_count;
    for (std::size_t j = 0; in_order && j < made_count; ++j)
      in_order = !made_node_at(j).known() || read[j] == nodes[made_node_at(j).step];
    for (std::size_t j = 0; j < made_count; ++j)
      if (!made_node_at(j).known()) nodes[made_node_at(j).step] = in_order ? read[j] : nullptr;
  }
  deferred_made_ = {};
  unread_ = false;
}

namespace {
// The first port edge entering `step` (port edges are ordered by `to`), or the end.
std::span<const plan::port_step>::iterator first_port(std::span<const plan::port_step> edges, std::uint32_t step) {
  auto it = std::lower_bound(edges.begin(), edges.end(), step,
                             [](const plan::port_step& e, std::uint32_t s) { return e.to < s; });
  return it != edges.end() && it->to == step ? it : edges.end();
}
}  // namespace

bool graph_state::port_edge_enters(std::uint32_t step) const {
  return first_port(port_edges, step) != port_edges.end();
}

list<cudaGraphEdgeData> graph_state::edge_data(std::uint32_t step, list<cudaGraphNode_t> deps) {
  if (port_edges.empty()) return {};  // most graphs: no search per node
  auto first = first_port(port_edges, step);
  if (first == port_edges.end()) return {};
  edge_data_.assign(deps.size(), cudaGraphEdgeData{});
  for (auto e = first; e != port_edges.end() && e->to == step; ++e)
    for (std::size_t d = 0; d < deps.size(); ++d)
      if (deps.data()[d] == nodes[e->from]) {
        edge_data_[d].type = cudaGraphDependencyTypeProgrammatic;
        edge_data_[d].from_port =
            e->launch_completion ? cudaGraphKernelNodePortLaunchCompletion : cudaGraphKernelNodePortProgrammatic;
      }
  return edge_data_;
}

void create_graph(graph_state& g, const site& at) {
  g.graph_site = at;
  cudaGraph_t made = nullptr;
  CGRAPH_CUDA(cudaGraphCreate(&made, 0), at);
  g.graph = graph_handle::adopt(made);
}

list<cudaGraphNode_t> graph_state::gather_nodes(const std::uint32_t* steps, std::uint32_t count,
                                                std::vector<cudaGraphNode_t>& gathered) const {
  gathered.clear();
  for (std::uint32_t k = 0; k < count; ++k) gathered.push_back(nodes[steps[k]]);
  return gathered;
}

namespace {
[[gnu::always_inline]] inline void make_cond(graph_state& g, std::uint32_t cond, cudaGraph_t graph, unsigned value,
                                             bool has_default, const site& at) {
  CGRAPH_CUDA(cudaGraphConditionalHandleCreate(&g.conds[cond], graph, value, has_default ? cudaGraphCondAssignDefault : 0),
              at);
}
}  // namespace

void create_cond(graph_state& g, std::uint32_t cond, cudaGraph_t graph, unsigned value, bool has_default, const site& at) {
  make_cond(g, cond, graph, value, has_default, at);
}

void create_conds(graph_state& g, cudaGraph_t graph, std::span<const cond_init> conds) {
  for (const cond_init& c : conds) make_cond(g, c.cond, graph, c.value, c.has_default, c.at);
}

void* repeat_count(graph_state& g, std::uint32_t cond, const site& at) {
  if (g.repeat_counts.empty()) g.repeat_counts.resize(g.conds.size());
  device_memory& count = g.repeat_counts[cond];
  if (!count) {
    detail::require_driver("a 'repeat' loop", detail::conditional_nodes_version);
    void* made = nullptr;
    CGRAPH_CUDA(cudaMalloc(&made, sizeof(unsigned)), at);
    count = device_memory::adopt(made);
  }
  return count.get();
}

// ---- host slots -------------------------------------------------------------------------------

namespace {
void CUDART_CB destroy_host_slot(void* slot) { delete static_cast<host_slot*>(slot); }
}  // namespace

void CUDART_CB run_host_slot(void* slot) {
  try {
    static_cast<host_slot*>(slot)->run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cgraph: a host callback threw: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "cgraph: a host callback threw an exception\n");
  }
}

cudaHostNodeParams own_host_slot(std::unique_ptr<host_slot> slot, cudaGraph_t owner, const site& at) {
  cudaUserObject_t object = nullptr;
  CGRAPH_CUDA(cudaUserObjectCreate(&object, slot.get(), destroy_host_slot, 1, cudaUserObjectNoDestructorSync), at);
  host_slot* raw = slot.release();  // the user object owns it now
  // The graph takes over our reference: the slot lives while any graph or exec needs it.
  cudaError_t status = CGRAPH_CUDA_STATUS(cudaGraphRetainUserObject(owner, object, 1, cudaGraphUserObjectMove));
  if (status != cudaSuccess) cudaUserObjectRelease(object, 1);
  check(status, "cudaGraphRetainUserObject", at);
  return cudaHostNodeParams{run_host_slot, raw};
}

}  // namespace cgraph::backend
