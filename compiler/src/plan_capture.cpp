// The capture backend: per graph body, a topological order of the explicit plan's steps and
// their streams. Streams are assigned greedily: a node continues the stream of a dependency
// that is still that stream's last node, else it takes a stream not yet used, else a new one.
// For the DAGs that sequences and `parallel` blocks make this needs as many streams as the
// body is wide; `after` edges can need more (each stream must be a path of real edges, or
// stream order would add edges the explicit graph does not have).

#include <cgraph/compiler/plan.hpp>

#include <span>

namespace cgraph::plan {

namespace {

class capture_planner {
public:
  explicit capture_planner(const explicit_plan& steps)
      : steps_(steps), stream_of_(steps.steps.size(), ir::none), waited_(steps.steps.size(), false) {
    // Steps grouped by the graph they go into, in plan order: one list for all the graphs (it
    // was a map of one vector a body, a heap block for each conditional's body).
    first_member_.assign(steps.body_graphs + 2, 0);
    for (const auto& st : steps.steps) ++first_member_[home_of(st.parent) + 1];
    for (std::size_t h = 1; h < first_member_.size(); ++h) first_member_[h] += first_member_[h - 1];
    members_.resize(steps.steps.size());
    std::vector<std::uint32_t> next(first_member_.begin(), first_member_.end() - 1);
    for (std::uint32_t i = 0; i < steps.steps.size(); ++i) members_[next[home_of(steps.steps[i].parent)]++] = i;
  }

  capture_plan run() {
    out_.bodies.emplace_back();
    fill(0, location{});
    return std::move(out_);
  }

private:

  void fill(std::uint32_t body_index, location where) {
    // The explicit plan already orders each body topologically: its order is the capture order.
    const std::uint32_t home = home_of(where);
    const std::span<const std::uint32_t> order(members_.data() + first_member_[home],
                                               first_member_[home + 1] - first_member_[home]);
    capture_body body;
    body.nodes.reserve(order.size());
    std::vector<std::uint32_t>& stream_of = stream_of_;
    std::vector<std::uint32_t> tail;  // last step on each stream, ir::none while unused
    tail.push_back(ir::none);
    for (std::uint32_t s : order) {
      const auto& deps = steps_.steps[s].deps;
      std::uint32_t chosen = ir::none;
      for (std::uint32_t d : deps)
        if (tail[stream_of[d]] == d) {
          chosen = stream_of[d];
          break;
        }
      if (chosen == ir::none) {
        // A stream, once used, always has a last step: the only one not yet used is stream 0
        // before the body's first step. Searching the tails for it made a wide body (a
        // 10 000-branch `parallel`) quadratic to plan.
        chosen = static_cast<std::uint32_t>(tail.size() - 1);
        if (tail.back() != ir::none) {
          ++chosen;
          tail.push_back(ir::none);
        }
      }
      capture_node n;
      n.step = s;
      n.stream = chosen;
      for (std::uint32_t d : deps)
        if (d != tail[chosen]) n.waits.push_back(d);
      tail[chosen] = s;
      stream_of[s] = chosen;
      body.nodes.push_back(std::move(n));
    }
    body.streams = static_cast<std::uint32_t>(tail.size());
    // Events: recorded after every step some stream waits for. A stream whose last node a
    // later node already waited for is joined; the others are joined to stream 0 at the end.
    std::vector<bool>& waited = waited_;
    for (const auto& n : body.nodes)
      for (auto w : n.waits) waited[w] = true;
    for (std::uint32_t k = 1; k < tail.size(); ++k)
      if (tail[k] != ir::none && !waited[tail[k]]) body.joins.push_back(tail[k]);
    for (auto j : body.joins) waited[j] = true;
    for (auto& n : body.nodes) n.record_event = waited[n.step];

    out_.bodies[body_index] = std::move(body);
    // Bodies of conditionals, after this body's list is final (indices into out_.bodies).
    for (std::size_t i = 0; i < out_.bodies[body_index].nodes.size(); ++i) {
      std::uint32_t step = out_.bodies[body_index].nodes[i].step;
      const ir::node& node = *steps_.steps[step].node;
      for (std::uint32_t k = 0; k < node.bodies_count; ++k) {
        auto index = static_cast<std::uint32_t>(out_.bodies.size());
        out_.bodies.emplace_back();
        out_.bodies[body_index].nodes[i].bodies.push_back(index);
        fill(index, location{step, k});
      }
    }
  }

  const explicit_plan& steps_;
  // By step: one pair for the whole plan. A body reads and writes only its own steps' entries (a
  // step's dependencies lie in its body), and each step lies in one body, so no body sees
  // another's. A pair per body, each as long as the plan, made planning
  // quadratic in the number of conditionals: a 10 000-node graph of `if`s spent about 22 000
  // instructions a node on text -> graph where a chain spends 14 000 (docs/performance.md, run 36).
  std::vector<std::uint32_t> stream_of_;  // the stream a step was given
  std::vector<bool> waited_;              // whether a later step (or the body's end) waits for it
  // The graph a step goes into (explicit_plan::graph_number): 0 for the root, 1 + its body index
  // for a conditional's body.
  std::uint32_t home_of(location l) const { return steps_.graph_number(l); }
  // By graph (home_of), its steps in plan order: members_[first_member_[h], first_member_[h + 1]).
  std::vector<std::uint32_t> first_member_;
  std::vector<std::uint32_t> members_;
  capture_plan out_;
};

}  // namespace

capture_plan lower_capture(const explicit_plan& steps) { return capture_planner(steps).run(); }

}  // namespace cgraph::plan
