// The capture strategy on the run-time path: walks a capture plan on a backend capture session
// (backend/capture_session.hpp), which owns the streams, events, fork/join and every open
// capture, and issues each step through the backend's node operations. Generated code in
// capture mode makes the same calls, printed.

#include "build_steps.hpp"
#include "plan_rows.hpp"
#include "node_params.hpp"

#include <cgraph/runtime/backend/capture_rows.hpp>
#include <cgraph/runtime/backend/capture_session.hpp>
#include <cgraph/runtime/backend/node_ops.hpp>

#include <map>

namespace cgraph::detail {

namespace {

class capture_builder : step_builder {
public:
  explicit capture_builder(built_graph& out)
      : step_builder(out), capture_(out.capture()), session_(out, out.graph_site, out.symbols->capture_mode) {}

  void run() {
    prepare();
    materialize();
    session_.begin(capture_.root_streams);
    // Only a root that holds conds asks CUDA for the graph being captured.
    if (holds_conds(0)) create_conds_of(0, session_.root());
    walk();
    session_.end(capture_.joins());
    refresh_late_readers();
    apply_attributes();
  }

private:
  // Everything that may allocate, load or capture on its own is done before the capture
  // begins: in thread-local mode (the default) a thread with an open capture may not call
  // cudaMalloc, load a library, or run a routine that does (cuBLAS allocates a workspace).
  void materialize() {
    if (g_.symbols->any_routine) {
      for (std::uint32_t i = 0; i < plan_.steps.size(); ++i) prepare_step(i);
    } else {
      for (std::uint32_t i : g_.templates->prepared_steps) prepare_step(i);
    }
  }

  void prepare_step(std::uint32_t i) {
    const ir::node& n = *plan_.steps[i].node;
    where at = g_.at(n.range);
    switch (n.kind) {
      case ir::node_kind::repeat_init: backend::repeat_count(g_, n.cond, at); break;
      case ir::node_kind::kernel:
        if (const captured_routine* routine = routine_of(n)) {
          // Cond handles do not exist yet: a routine gets 0 for a cond argument. One given an
          // allocation is captured in the walk, once the allocation exists (captured_routine_of).
          if (ir::node_reads_allocation(ir_, n)) break;
          routines_[i] = capture_routine(*routine, compute(i, true), g_.symbols->capture_mode, at);
        } else {
          kernel_function(*g_.program, *g_.symbols, n.callee, at);
        }
        break;
      case ir::node_kind::collective:  // NCCL's warm-up runs work and waits: never inside a capture
        routines_[i] = capture_collectives(g_, n, compute(i, false), at);
        break;
      case ir::node_kind::child_graph:
        if (plan::built_during_capture(ir_, n)) break;  // in the walk (make_other), once what it is given exists
        g_.set_child(i, build_child(g_, n, compute(i, false)));
        break;
      default: break;
    }
  }

  // The graph that routine or collective step `step` embeds: made before the capture began, or,
  // for a routine given an allocation, captured now, beside the open capture in relaxed mode (a
  // routine may allocate, as cuBLAS does its workspace), as a child graph given one is built.
  cudaGraph_t captured_routine_of(std::uint32_t step, const node_values& v, const captured_routine* routine,
                                  const where& at) {
    auto made = routines_.find(step);
    if (made == routines_.end()) {
      backend::relaxed_capture_mode aside;
      made = routines_.emplace(step, capture_routine(*routine, v, g_.symbols->capture_mode, at)).first;
    }
    return made->second.get();
  }

  // The rows in order (plan_rows.hpp), by the walk the table form makes; each node by the
  // dispatch the explicit walk shares (step_builder::make_node), issued on its stream.
  void walk() {
    backend::walk_capture_rows(
        session_, capture_.rows, capture_.waits.data(),
        [this](std::uint32_t i, unsigned k) {
          make_node(i, g_.templates->rows[i], backend::issue_on_stream{session_, k},
                    [this](std::uint32_t step, const ir::node&, const node_values& v, const captured_routine* routine,
                           const where& at) { return captured_routine_of(step, v, routine, at); },
                    [] {});  // its bodies are the rows that follow
        },
        [this](std::uint32_t body) { create_conds(body + 1, g_.bodies[body]); });
  }

  const capture_rows& capture_;
  backend::capture_session session_;
  // Captured routines and collectives by step, made before the capture.
  std::map<std::uint32_t, backend::graph_handle> routines_;
};

}  // namespace

void capture_graph(built_graph& g) { capture_builder(g).run(); }

}  // namespace cgraph::detail
