#pragma once
// Construction plans: the ordered steps that build one graph. The runtime executes a plan; the
// code generator (later) prints the same plan as C++, so both build the same graph.

#include <cgraph/compiler/ir.hpp>

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace cgraph::plan {

// Where a step's node goes: the root graph, or body `body` of the conditional made by step
// `step`.
struct location {
  std::uint32_t step = ir::none;  // ir::none: the root graph
  std::uint32_t body = 0;

  friend bool operator==(location, location) = default;
};

// One "add node" step of the explicit strategy.
struct step {
  const ir::node* node = nullptr;
  location parent;
  // Earlier steps, all in the same parent: a view of the plan's dep_steps, where every step's
  // lie one after another (a build reads them in step order, from one block).
  std::span<const std::uint32_t> deps;
};


// A programmatic edge between two kernel steps: the dependency of `to` on `from` leaves
// `from`'s programmatic port, or its launch-completion port.
struct port_step {
  std::uint32_t from = 0;
  std::uint32_t to = 0;
  bool launch_completion = false;
};

// By graph, numbered as explicit_plan::graph_number numbers them (0 the root, b + 1 body b): the
// conds whose conditional nodes live in it, conds[first[n], first[n + 1]) in cond order, which a
// build makes as it begins that graph. One list read in place by the run-time path
// (step_builder::create_conds) and generated C++ (emit_cpp.cpp, cond_inits) alike; the run-time
// path found a body's conds through two lists by body and a map by location until run 66, and
// generated C++ through a map by location until run 68.
struct graph_conds {
  std::vector<std::uint32_t> first;  // body_graphs + 2 entries
  std::vector<std::uint32_t> conds;

  std::span<const std::uint32_t> of(std::uint32_t graph) const {
    return {conds.data() + first[graph], first[graph + 1] - first[graph]};
  }
};

struct explicit_plan {
  explicit_plan() = default;
  // Moved, never copied: the steps' dependency views point into dep_steps.
  explicit_plan(explicit_plan&&) noexcept = default;
  explicit_plan& operator=(explicit_plan&&) noexcept = default;
  explicit_plan(const explicit_plan&) = delete;
  explicit_plan& operator=(const explicit_plan&) = delete;

  const ir::graph* graph = nullptr;
  std::vector<step> steps;      // depth-first: a conditional, then its bodies, then what follows
  std::vector<std::uint32_t> dep_steps;  // every step's dependencies, in step order
  // By cond index: the graph whose conditional node the cond drives. The runtime creates the
  // handles of a graph as soon as that graph exists, before any node is added to it.
  std::vector<location> cond_homes;
  // The same, inverted: the conds of each graph, by graph_number.
  graph_conds conds_by_graph;
  std::uint32_t body_graphs = 0;  // number of body graphs all conditionals create
  // By step: the index among all body graphs of a conditional's first body (ir::none for
  // other steps). Bodies are numbered in step order, so both strategies, the run-time path and
  // generated code keep a graph's bodies in one flat list.
  std::vector<std::uint32_t> first_body;
  std::uint32_t body_index(location l) const { return first_body[l.step] + l.body; }
  // The graph at `l` numbered as one flat list of graphs: 0 the root, b + 1 body b.
  std::uint32_t graph_number(location l) const { return l.step == ir::none ? 0 : body_index(l) + 1; }
  // Kernel steps given a cond whose handle is made after them. The cond of an `else if`
  // belongs to the else body's graph, which exists only once the outer conditional node is
  // added, after the kernels that set the cond (its dependencies). Both strategies set these
  // steps' parameters again once the whole graph is made.
  std::vector<std::uint32_t> late_readers;
  // Programmatic edges (`after programmatic(L)`, `after launched(L)`), ordered by `to`: the
  // backend makes the edge with its port as it adds or captures step `to`.
  std::vector<port_step> port_steps;
  // Steps whose node has `[[…]]` attributes, applied once the graph is made.
  std::vector<std::uint32_t> attributed;
};

explicit_plan lower_explicit(const ir::graph& g);

// ---- launches a build has checked ----
//
// A kernel node whose kernel and launch configuration (the expressions of its grid, block and
// shared bytes) a kernel node made earlier in the same build already had passes the launch
// check that one passed (launch limits against the kernel's attributes and the device's), or
// the build stopped there: the same expression is the same value within one build. Such a node
// is made without the check (backend::kernel_node::add_checked, capture_checked). A node placed
// on a device (`[[device(…)]]`, `on device`) neither takes nor gives it: its check read that
// device's limits. The one rule of every construction path: the run-time path's rows
// (runtime/src/plan_rows.cpp, step_row::known_launch), generated C++'s table form (table_node)
// and its readable form (emit_cpp.cpp, add_kernel_again) ask it step by step, the order in
// which both strategies make the nodes (walk_capture below).
class launch_memory {
public:
  explicit launch_memory(const ir::graph& g) : g_(&g) {}
  // Whether kernel node `n`, the next node of g a build makes, launches what a node made before
  // it launched; false for any other node. Call once a node, in the order of the build.
  bool known(const ir::node& n);

private:
  using key = std::array<std::uint32_t, 1 + ir::launch_config::slots>;  // the kernel, the slots' expressions
  void grow();

  const ir::graph* g_;
  // Open addressing, a power of two of entries, at most half of them used; an empty entry's
  // kernel is ir::none. One allocation a doubling, none a node.
  std::vector<key> seen_;
  std::size_t used_ = 0;
  key last_{ir::none};  // the launch asked last, in seen_ already
};

// Whether `call` node n's child graph is built during the capture, once the capture has made
// what it is given, not before the capture begins as other child graphs: a cond of its own
// graph (LANGUAGE.md §11) needs the handle, and an `alloc`'s address (passed as it is, or read
// by any value of the node) exists only once the alloc node is made.
inline bool built_during_capture(const ir::graph& g, const ir::node& n) {
  if (n.kind != ir::node_kind::child_graph) return false;
  for (const auto& a : g.args(n))
    if (a.expr < g.exprs.size() && g.exprs[a.expr].op == ir::op::cond_ref) return true;
  return ir::node_reads_allocation(g, n);
}

// ---- the capture strategy -------------------------------------------------------------------
//
// The same steps, issued on streams during stream capture. Each graph body (the root, each
// conditional body) is captured on streams of its own: stream 0 begins and ends the capture,
// the others fork from it at the start (an event) and join it at the end. A node goes on the
// stream whose last node is one of its dependencies (so stream order makes that edge), and
// waits for events of its other dependencies; nodes are issued in a topological order, so
// `after` edges to later labels work.

struct capture_node {
  std::uint32_t step = 0;              // the explicit plan's step: same node, same record
  std::uint32_t stream = 0;            // index among the body's streams
  std::vector<std::uint32_t> waits;    // steps whose events the stream waits for first
  bool record_event = false;           // a node on another stream (or a join) waits for this one
  std::vector<std::uint32_t> bodies;   // a conditional: index in capture_plan::bodies of each body
};

struct capture_body {
  std::uint32_t streams = 1;
  std::vector<capture_node> nodes;     // a topological order of the body's steps
  std::vector<std::uint32_t> joins;    // last steps of streams 1… that stream 0 waits for at the end
};

struct capture_plan {
  std::vector<capture_body> bodies;    // bodies[0] is the root graph
};

capture_plan lower_capture(const explicit_plan& steps);

// The capture as one sequence of rows, the order a build issues it in: each node of a body in
// order, and after a conditional's node each of its bodies between a row that enters it and one
// that leaves it. The one walk behind the run-time path's rows (runtime/src/plan_rows.cpp,
// flatten_capture) and generated C++'s table form (emit_cpp.cpp, capture_rows). Its node rows
// are the steps in increasing order: a body's nodes are in plan order, and the plan lists a
// conditional's bodies right after it, as the walk enters them; so what is worked out step by
// step (launch_memory) holds for a capture too (tests/unit/plan_tests.cpp checks the order).
// `row(kind, number, stream, waits, record)` is called with, for a node, its step, its stream,
// the steps it waits for and whether it records its event; for entering a body, the body's
// number among the graph's bodies (explicit_plan::first_body) and its stream count; for leaving
// it, 0, 0 and the body's joins.
enum class capture_row_kind : std::uint8_t { node, enter_body, leave_body };

template <typename Row>
void walk_capture(const explicit_plan& steps, const capture_plan& capture, Row&& row, std::uint32_t body = 0) {
  for (const capture_node& cn : capture.bodies[body].nodes) {
    row(capture_row_kind::node, cn.step, cn.stream, std::span<const std::uint32_t>(cn.waits), cn.record_event);
    for (std::uint32_t k = 0; k < cn.bodies.size(); ++k) {  // a conditional's
      const capture_body& inner = capture.bodies[cn.bodies[k]];
      row(capture_row_kind::enter_body, steps.first_body[cn.step] + k, inner.streams, std::span<const std::uint32_t>(), false);
      walk_capture(steps, capture, row, cn.bodies[k]);
      row(capture_row_kind::leave_body, 0u, 0u, std::span<const std::uint32_t>(inner.joins), false);
    }
  }
}

}  // namespace cgraph::plan
