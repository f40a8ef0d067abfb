#include "plan_rows.hpp"

namespace cgraph::detail {

std::vector<step_row> step_rows(const plan::explicit_plan& steps) {
  std::vector<step_row> rows(steps.steps.size());
  const std::uint32_t* deps = steps.dep_steps.data();
  for (std::uint32_t i = 0; i < rows.size(); ++i) {
    const plan::step& s = steps.steps[i];
    const ir::node& n = *s.node;
    step_row& r = rows[i];
    r.kind = n.kind;
    r.cond_kind = n.cond_kind;
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

graph_conds conds_by_graph(const plan::explicit_plan& steps) {
  // A count per graph, then each cond in order where its graph's run begins.
  graph_conds out;
  out.first.assign(steps.body_graphs + 2, 0);
  for (const plan::location& home : steps.cond_homes) ++out.first[steps.graph_number(home) + 1];
  for (std::size_t n = 1; n < out.first.size(); ++n) out.first[n] += out.first[n - 1];
  out.conds.resize(steps.cond_homes.size());
  std::vector<std::uint32_t> next(out.first.begin(), out.first.end() - 1);
  for (std::uint32_t c = 0; c < steps.cond_homes.size(); ++c) out.conds[next[steps.graph_number(steps.cond_homes[c])]++] = c;
  return out;
}

namespace {

class flattener {
public:
  flattener(const plan::explicit_plan& steps, const plan::capture_plan& capture, capture_rows& out)
      : steps_(steps), capture_(capture), out_(out) {}

  void body(const plan::capture_body& b) {
    for (const plan::capture_node& cn : b.nodes) {
      row(backend::capture_op::node, cn.step, cn.stream, cn.waits, cn.record_event);
      for (std::uint32_t k = 0; k < cn.bodies.size(); ++k) {  // a conditional's
        const plan::capture_body& inner = capture_.bodies[cn.bodies[k]];
        row(backend::capture_op::enter_body, steps_.first_body[cn.step] + k, inner.streams, {}, false);
        body(inner);
        row(backend::capture_op::leave_body, 0, 0, inner.joins, false);
      }
    }
  }

private:
  void row(backend::capture_op op, std::uint32_t step, std::uint32_t stream, const std::vector<std::uint32_t>& waits,
           bool record) {
    out_.rows.push_back({op, step, stream, static_cast<std::uint32_t>(out_.waits.size()),
                         static_cast<std::uint32_t>(waits.size()), record});
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
