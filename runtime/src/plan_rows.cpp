#include "plan_rows.hpp"

namespace cgraph::detail {

// The plan's row kinds are the backend's capture ops, value for value.
static_assert(static_cast<int>(backend::capture_op::node) == static_cast<int>(plan::capture_row_kind::node) &&
              static_cast<int>(backend::capture_op::enter_body) == static_cast<int>(plan::capture_row_kind::enter_body) &&
              static_cast<int>(backend::capture_op::leave_body) == static_cast<int>(plan::capture_row_kind::leave_body));

std::vector<step_row> step_rows(const plan::explicit_plan& steps) {
  std::vector<step_row> rows(steps.steps.size());
  const std::uint32_t* deps = steps.dep_steps.data();
  plan::launch_memory launches(*steps.graph);
  for (std::uint32_t i = 0; i < rows.size(); ++i) {
    const plan::step& s = steps.steps[i];
    const ir::node& n = *s.node;
    step_row& r = rows[i];
    r.kind = n.kind;
    r.cond_kind = n.cond_kind;
    r.known_launch = launches.known(n);
    r.source = n.range.begin;
    r.callee = n.kind == ir::node_kind::conditional ? n.cond : n.callee;
    r.graph = steps.graph_number(s.parent);
    if (n.kind == ir::node_kind::conditional) {
      r.body = steps.first_body[i];
      r.bodies = n.bodies_count;
    }
    r.deps = static_cast<std::uint32_t>(s.deps.data() - deps);  // a view of dep_steps (plan.hpp)
    r.dep_count = static_cast<std::uint32_t>(s.deps.size());
  }
  return rows;
}

capture_rows flatten_capture(const plan::explicit_plan& steps, const plan::capture_plan& capture) {
  capture_rows out;
  const plan::capture_body& root = capture.bodies[0];
  out.root_streams = root.streams;
  std::size_t rows = 0;
  for (const plan::capture_body& b : capture.bodies) rows += b.nodes.size() + 2;
  out.rows.reserve(rows);
  plan::walk_capture(steps, capture, [&](plan::capture_row_kind kind, std::uint32_t number, std::uint32_t stream,
                                         std::span<const std::uint32_t> waits, bool record) {
    out.rows.push_back({static_cast<backend::capture_op>(kind), number, stream, static_cast<std::uint32_t>(out.waits.size()),
                        static_cast<std::uint32_t>(waits.size()), record});
    out.waits.insert(out.waits.end(), waits.begin(), waits.end());
  });
  out.root_joins = static_cast<std::uint32_t>(out.waits.size());
  out.waits.insert(out.waits.end(), root.joins.begin(), root.joins.end());
  return out;
}

}  // namespace cgraph::detail
