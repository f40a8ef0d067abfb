#pragma once
// A compiled graph's plans as flat rows, which the run-time walkers read front to back:
// - step_row, by plan step, what the explicit walk (builder.cpp) and the capture walk
//   (capture_builder.cpp) read of a step: a kernel and a conditional are made from their row
//   alone, other kinds read their IR node;
// - capture_rows, the capture plan (plan::lower_capture) in the order the capture issues it,
//   each node and each conditional body between an enter row and a leave row: the rows the
//   generated table form walks (backend/capture_rows.hpp), walked by the same loop, and made
//   by the walk (plan::walk_capture) that emit-cpp writes the table form's rows from. The row
//   type comes alone (backend/capture_row.hpp): this header does not take in the session.
//
// Why copies of the plans: their nested form sent a walk to five places a node (the capture
// plan's node, its vectors of waits and bodies, the explicit step, the IR node, the location's
// body), and on the device those reads cost more than their instructions: each comes after a
// driver call that evicted them. A 1 000-node capture of conditionals took 0.07 µs a node more
// than the generated table form, whose walk makes about the same calls from rows like these
// (docs/performance.md, runs 63 and 64).

#include <cgraph/compiler/ir.hpp>
#include <cgraph/compiler/plan.hpp>
#include <cgraph/runtime/backend/capture_row.hpp>
#include <cgraph/runtime/backend/list.hpp>

#include <cstdint>
#include <vector>

namespace cgraph::detail {

struct step_row {
  ir::node_kind kind = ir::node_kind::kernel;
  ir::cond_kind cond_kind = ir::cond_kind::if_then;  // a conditional's
  // A kernel's: made without the launch check (plan::launch_memory, asked in step order, which
  // is the capture's order too).
  bool known_launch = false;
  std::uint32_t source = 0;  // its statement's offset in the program's source
  std::uint32_t callee = 0;  // a kernel's IR kernel, a conditional's cond
  std::uint32_t graph = 0;   // the graph it goes into: 0 the root, b + 1 body b (as table_node's)
  std::uint32_t body = 0;    // a conditional's first body among the graph's bodies
  std::uint32_t bodies = 0;  // a conditional's body count
  std::uint32_t deps = 0;    // its dependencies, steps at the plan's dep_steps[deps, deps + dep_count)
  std::uint32_t dep_count = 0;
};

// The rows of explicit plan `steps`, by step.
std::vector<step_row> step_rows(const plan::explicit_plan& steps);

struct capture_rows {
  unsigned root_streams = 1;
  // Rows as the table form's: {node, step, stream, waits, wait count, records its event},
  // {enter_body, body, its stream count} and {leave_body, 0, 0, joins, join count}.
  std::vector<backend::capture_row> rows;
  std::vector<std::uint32_t> waits;  // every row's waits and joins, then the root's joins
  std::uint32_t root_joins = 0;      // the root's joins: waits[root_joins, end)

  backend::list<std::uint32_t> joins() const { return {waits.data() + root_joins, waits.size() - root_joins}; }
};

// The rows of explicit plan `steps`' capture plan `capture`.
capture_rows flatten_capture(const plan::explicit_plan& steps, const plan::capture_plan& capture);

}  // namespace cgraph::detail
