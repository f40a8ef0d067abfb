#include "capture_rows.hpp"

namespace cgraph::detail {

namespace {

class flattener {
public:
  flattener(const plan::explicit_plan& steps, const plan::capture_plan& capture, capture_rows& out)
      : steps_(steps), capture_(capture), out_(out) {}

  void body(const plan::capture_body& b) {
    for (const plan::capture_node& cn : b.nodes) {
      const ir::node& n = *steps_.steps[cn.step].node;
      capture_row& r = out_.rows.emplace_back();
      r.kind = n.kind;
      r.cond_kind = n.cond_kind;
      r.record = cn.record_event;
      r.step = cn.step;
      r.stream = cn.stream;
      r.source = n.range.begin;
      set_waits(r, cn.waits);
      if (n.kind == ir::node_kind::kernel) r.callee = n.callee;
      if (n.kind != ir::node_kind::conditional) continue;
      r.callee = n.cond;
      r.body = steps_.first_body[cn.step];
      r.bodies = n.bodies_count;
      for (std::uint32_t k = 0; k < cn.bodies.size(); ++k) {
        const plan::capture_body& inner = capture_.bodies[cn.bodies[k]];
        capture_row& enter = out_.rows.emplace_back();  // `r` may have moved
        enter.op = gen::capture_op::enter_body;
        enter.step = cn.step;
        enter.stream = inner.streams;
        enter.body = steps_.first_body[cn.step] + k;
        enter.bodies = k;
        body(inner);
        capture_row& leave = out_.rows.emplace_back();
        leave.op = gen::capture_op::leave_body;
        set_waits(leave, inner.joins);
      }
    }
  }

private:
  void set_waits(capture_row& r, const std::vector<std::uint32_t>& waits) {
    r.waits = static_cast<std::uint32_t>(out_.waits.size());
    r.wait_count = static_cast<std::uint32_t>(waits.size());
    out_.waits.insert(out_.waits.end(), waits.begin(), waits.end());
  }

  const plan::explicit_plan& steps_;
  const plan::capture_plan& capture_;
  capture_rows& out_;
};

}  // namespace

capture_rows flatten_capture(const plan::explicit_plan& steps, const plan::capture_plan& capture) {
  capture_rows out;
  const plan::capture_body& root = capture.bodies[0];
  out.root_streams = root.streams;
  std::size_t rows = 0;
  for (const plan::capture_body& b : capture.bodies) rows += b.nodes.size() + 2;
  out.rows.reserve(rows);
  flattener(steps, capture, out).body(root);
  out.root_joins = static_cast<std::uint32_t>(out.waits.size());
  out.waits.insert(out.waits.end(), root.joins.begin(), root.joins.end());
  return out;
}

}  // namespace cgraph::detail
