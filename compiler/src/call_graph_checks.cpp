// Every walk here is iterative or bounded: a file may chain hundreds of thousands of graphs
// through `call` (fuzzing found the recursive version overflowing the stack), and each pass
// is linear in graphs plus calls (the old fixed point for host nodes was quadratic).

#include "call_graph_checks.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>

#include <fmt/format.h>

namespace cgraph::compiler::detail {
namespace {

using edges = std::vector<std::vector<const call_site*>>;

struct frame {
  std::uint32_t graph;
  std::size_t next_call = 0;
};

// "'a' → 'b' → 'a'" for the cycle from path[start] back to it. A long cycle shows its first
// and last `shown` graphs and counts the rest: a chain of 4 000 graphs that each also call the
// first one printed every cycle whole, 92 MB from 170 KB.
std::string cycle_text(const ir::program& program, const std::vector<frame>& path, std::size_t start) {
  constexpr std::size_t shown = 4;
  const std::size_t length = path.size() - start;
  std::string text;
  for (std::size_t i = 0; i < length; ++i) {
    if (length > 2 * shown + 1 && i == shown) {  // hiding one name would save nothing
      text += fmt::format("… {} more → ", length - 2 * shown);
      i = length - shown;
    }
    text += fmt::format("'{}' → ", program.graphs[path[start + i].graph].name);
  }
  return text + fmt::format("'{}'", program.graphs[path[start].graph].name);
}

// All graphs, callees before callers; nullopt (after reporting each cycle found) when the
// calls are recursive.
std::optional<std::vector<std::uint32_t>> callees_first(const ir::program& program, const edges& out,
                                                        diagnostics& diags) {
  std::size_t n = program.graphs.size();
  enum class mark : std::uint8_t { unseen, active, done };
  std::vector<mark> marks(n, mark::unseen);
  std::vector<std::uint32_t> order;
  std::vector<frame> path;  // the depth-first path; a call to a graph on it closes a cycle
  std::vector<std::uint32_t> depth(n);  // an active graph's place on the path
  bool acyclic = true;
  for (std::uint32_t root = 0; root < n; ++root) {
    if (marks[root] != mark::unseen) continue;
    path.push_back({root});
    marks[root] = mark::active;
    depth[root] = 0;
    while (!path.empty()) {
      frame& f = path.back();
      if (f.next_call == out[f.graph].size()) {
        marks[f.graph] = mark::done;
        order.push_back(f.graph);
        path.pop_back();
        continue;
      }
      const call_site* c = out[f.graph][f.next_call++];
      if (marks[c->callee] == mark::active) {
        diags.error(c->range, fmt::format("recursive call: {}", cycle_text(program, path, depth[c->callee])));
        acyclic = false;
      } else if (marks[c->callee] == mark::unseen) {
        marks[c->callee] = mark::active;
        depth[c->callee] = static_cast<std::uint32_t>(path.size());
        path.push_back({c->callee});  // `f` is not used past this point: push_back may move it
      }
    }
  }
  if (!acyclic) return std::nullopt;
  return order;
}

// Each call chain deeper than the limit is reported once, at the call where it crosses it.
void check_call_depth(const std::vector<std::uint32_t>& order, const edges& out, diagnostics& diags,
                      const compile_limits& limits) {
  std::vector<std::size_t> height(out.size(), 1);  // graphs in the longest chain starting here
  for (std::uint32_t g : order)
    for (const call_site* c : out[g]) {
      if (height[c->callee] == limits.max_call_depth)
        diags.error(c->range, fmt::format("chain of calls is deeper than the limit of {} graphs", limits.max_call_depth));
      height[g] = std::max(height[g], height[c->callee] + 1);
    }
}

// Nodes CUDA makes for each graph, callees copied in, each conditional body counted as one;
// saturates just past the limit, so the sums cannot overflow.
void check_node_count(const ir::program& program, const std::vector<std::uint32_t>& order, diagnostics& diags,
                      const compile_limits& limits) {
  const std::uint64_t cap = limits.max_nodes + 1;
  std::vector<std::uint64_t> weight(program.graphs.size(), 0);
  // Recursion here follows the nesting of bodies, which the parser caps (max_nesting).
  auto weigh = [&](auto& self, const ir::graph& g, const ir::body& b) -> std::uint64_t {
    std::uint64_t w = 0;
    for (const auto& n : b.nodes) {
      w += 1;
      if (n.kind == ir::node_kind::child_graph && n.callee != ir::none) w += weight[n.callee];
      for (const auto& inner : g.bodies(n)) w += 1 + self(self, g, inner);
      w = std::min(w, cap);
    }
    return w;
  };
  for (std::uint32_t g : order) {
    weight[g] = weigh(weigh, program.graphs[g], program.graphs[g].root);
    if (weight[g] == cap)
      diags.error(program.graphs[g].range,
                  fmt::format("graph '{}' makes more than {} CUDA nodes, counting each graph it calls and each "
                              "conditional body",
                              program.graphs[g].name, limits.max_nodes));
  }
}

// graph::root_only through `call`: spread from the graphs that hold such nodes to their callers,
// then refuse a `call` of one inside a conditional body (§13 rule 9).
void check_host_in_conditionals(ir::program& program, const std::vector<call_site>& calls, diagnostics& diags) {
  edges in(program.graphs.size());
  for (const auto& c : calls) in[c.callee].push_back(&c);
  std::vector<std::uint32_t> work;
  for (std::uint32_t g = 0; g < program.graphs.size(); ++g)
    if (program.graphs[g].root_only) work.push_back(g);
  while (!work.empty()) {
    std::uint32_t g = work.back();
    work.pop_back();
    for (const call_site* c : in[g]) {
      std::uint8_t& caller = program.graphs[c->caller].root_only;
      if ((caller | program.graphs[g].root_only) != caller) {
        caller |= program.graphs[g].root_only;
        work.push_back(c->caller);
      }
    }
  }
  for (const auto& c : calls) {
    // cudaGraphAddChildGraphNode refuses a graph that holds allocation or free nodes anywhere.
    if (program.graphs[c.callee].root_only & ir::root_only_memory) {
      diags.error(c.range, fmt::format("graph '{}' allocates with 'alloc' (directly or through 'call'), and CUDA does "
                                       "not allow memory nodes in a child graph; allocate in the caller and pass the "
                                       "pointer",
                                       program.graphs[c.callee].name));
      continue;
    }
    std::uint8_t kinds = c.in_conditional_body ? program.graphs[c.callee].root_only : 0;
    if (!kinds) continue;
    const char* what = kinds & ir::root_only_host         ? "a host callback"
                       : kinds & ir::root_only_event      ? "an event 'record' or 'wait'"
                       : kinds & ir::root_only_collective ? "an NCCL collective"
                                                          : "an 'alloc' or 'free'";
    diags.error(c.range, fmt::format("graph '{}' holds {} (directly or through 'call'), which CUDA does not allow "
                                     "inside a conditional body",
                                     program.graphs[c.callee].name, what));
  }
}

}  // namespace

void check_call_graph(ir::program& program, const std::vector<call_site>& calls, diagnostics& diags,
                      const compile_limits& limits) {
  edges out(program.graphs.size());
  for (const auto& c : calls) out[c.caller].push_back(&c);
  if (auto order = callees_first(program, out, diags)) {
    check_call_depth(*order, out, diags, limits);
    check_node_count(program, *order, diags, limits);
  }
  check_host_in_conditionals(program, calls, diags);
}

}  // namespace cgraph::compiler::detail
