#pragma once
// A capture plan as flat rows, and the one loop that issues them on a capture session: the
// generated table form walks the rows cgraphc wrote as constant arrays (generated.hpp,
// capture_table), the run-time path the rows it made from the compiled plan (runtime/src/
// plan_rows.hpp). Each row is one op, in the order of plan::lower_capture, the root's and each
// body's as the readable capture form issues them (emit_cpp.cpp, capture_body):
// - node: issues step `step` on stream `stream` of the body being captured, first waiting for
//   the events of the steps at waits[waits, waits + wait_count), and records the step's event
//   when `record` (a node on another stream, or the end's join, waits for it). A conditional's
//   node row is followed by its bodies, each between an enter_body and a leave_body row;
// - enter_body: captures body graph `step` (of the conditional just issued) on `stream` streams;
// - leave_body: ends that body, stream 0 first waiting for the steps at waits[waits, waits +
//   wait_count) (the last steps of its other streams).

#include <cgraph/runtime/backend/capture_row.hpp>
#include <cgraph/runtime/backend/capture_session.hpp>
#include <cgraph/runtime/backend/list.hpp>

#include <cstdint>

namespace cgraph::backend {

// Issues `rows` on session `c`, whose root capture has begun: `issue(step, stream)` makes a
// node row's node, `entered(body)` runs once body `body`'s capture has begun (the run-time path
// makes the conds that live in it there). `waits` is the list the rows' waits index. Inline
// with its callables: the walk runs once per node of every capture build.
template <typename Issue, typename Entered>
[[gnu::always_inline]] inline void walk_capture_rows(capture_session& c, list<capture_row> rows,
                                                     const std::uint32_t* waits, Issue&& issue, Entered&& entered) {
  for (const capture_row& r : rows) {
    if (r.op != capture_op::node) [[unlikely]] {
      if (r.op == capture_op::enter_body) {
        c.enter_body(r.step, r.stream);
        entered(r.step);
      } else {
        c.leave_body({waits + r.waits, r.wait_count});
      }
      continue;
    }
    if (r.wait_count != 0) c.wait(r.stream, list<std::uint32_t>(waits + r.waits, r.wait_count));
    issue(r.step, r.stream);
    if (r.record) c.record(r.stream, r.step);
  }
}

}  // namespace cgraph::backend
