#pragma once
// A compiled graph's capture plan (plan::lower_capture) as one flat list of rows, in the order
// the capture issues them: each node, and each conditional body between an enter row and a
// leave row, as the generated table form's capture_table is (generated.hpp, capture_op). The
// run-time capture walks it front to back (capture_builder.cpp).
//
// Why a copy of the plan: the plan's nested form (a vector of bodies, each a vector of nodes,
// each with vectors of waits and bodies) sent the walk to five places a node (the plan node, its
// vectors, the explicit step, the IR node, the body), and on the device those reads cost more
// than their instructions: each comes after a driver call that evicted them. A 1 000-node
// capture of conditionals took 0.07 µs a node more than the generated table form, whose walk
// does about the same instructions over rows like these (docs/performance.md, runs 63 and 64).
// A row carries what a kernel's and a conditional's issue read; other kinds read their IR node.

#include <cgraph/compiler/ir.hpp>
#include <cgraph/compiler/plan.hpp>
#include <cgraph/runtime/generated.hpp>

#include <cstdint>
#include <vector>

namespace cgraph::detail {

struct capture_row {
  gen::capture_op op = gen::capture_op::node;
  ir::node_kind kind = ir::node_kind::kernel;        // node: the step's kind
  ir::cond_kind cond_kind = ir::cond_kind::if_then;  // node: a conditional's
  bool record = false;  // node: records the step's event (a node on another stream, or a join, waits for it)
  // node: the explicit plan's step; enter_body: the step of the body's conditional.
  std::uint32_t step = 0;
  // node: its stream among the body's; enter_body: the body's stream count.
  std::uint32_t stream = 0;
  // node: the steps it waits for first; leave_body: the last steps of the body's other streams,
  // which stream 0 waits for. Both at capture_rows::waits[waits, waits + wait_count).
  std::uint32_t waits = 0;
  std::uint32_t wait_count = 0;
  std::uint32_t source = 0;  // node: its statement's offset in the program's source
  std::uint32_t callee = 0;  // node: a kernel's IR kernel, a conditional's cond
  // node: a conditional's first body among the graph's bodies; enter_body: the body's.
  std::uint32_t body = 0;
  // node: a conditional's body count; enter_body: the body's index in its conditional.
  std::uint32_t bodies = 0;
};

struct capture_rows {
  unsigned root_streams = 1;
  std::vector<capture_row> rows;
  std::vector<std::uint32_t> waits;  // every row's waits and joins, then the root's joins
  std::uint32_t root_joins = 0;      // the root's joins: waits[root_joins, end)
  backend::list<std::uint32_t> joins() const {
    return {waits.data() + root_joins, waits.size() - root_joins};
  }
  backend::list<std::uint32_t> waits_of(const capture_row& r) const { return {waits.data() + r.waits, r.wait_count}; }
};

// The rows of explicit plan `steps`' capture plan `capture`.
capture_rows flatten_capture(const plan::explicit_plan& steps, const plan::capture_plan& capture);

}  // namespace cgraph::detail
