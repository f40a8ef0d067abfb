// The capture strategy on the run-time path: walks a capture plan on a backend capture session
// (backend/capture_session.hpp), which owns the streams, events, fork/join and every open
// capture, and issues each step through the backend's node operations. Generated code in
// capture mode makes the same calls, printed.

#include "backend/kernel_known.hpp"
#include "build_steps.hpp"
#include "plan_rows.hpp"
#include "node_params.hpp"

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
    if (plan_.conds_by_home.contains(plan::home_key(plan::location{}))) create_root_conds(session_.root());
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
          // Cond handles do not exist yet: a routine gets 0 for a cond argument.
          routines_[i] = capture_routine(*routine, compute(i, true), g_.symbols->capture_mode, at);
        } else {
          kernel_function(*g_.program, *g_.symbols, n.callee, at);
        }
        break;
      case ir::node_kind::collective:  // NCCL's warm-up runs work and waits: never inside a capture
        routines_[i] = capture_collectives(g_, n, compute(i, false), at);
        break;
      case ir::node_kind::child_graph:
        if (plan::passes_own_cond(ir_, n)) break;  // built in issue(), once its handle exists
        g_.set_child(i, build_child(g_, n, compute(i, false)));
        break;
      default: break;
    }
  }

  // The rows in order: a node, or a conditional body's start or end (plan_rows.hpp), as
  // gen::capture_from_table walks the table form's.
  void walk() {
    for (const gen::table_capture_node& r : capture_.rows) {
      if (r.op != gen::capture_op::node) [[unlikely]] {
        if (r.op == gen::capture_op::enter_body) {
          session_.enter_body(r.step, r.stream);
          create_body_conds(r.step);
        } else {
          session_.leave_body(capture_.waits_of(r));
        }
        continue;
      }
      if (r.wait_count != 0) session_.wait(r.stream, capture_.waits_of(r));
      issue(r.step, r.stream);
      if (r.record) session_.record(r.stream, r.step);
    }
  }

  // Step i on stream k. A kernel and a conditional are issued from their step's row alone;
  // other kinds read their IR node.
  void issue(std::uint32_t i, unsigned k) {
    const step_row& s = g_.templates->rows[i];
    const where at = site_of(s);
    const captured_routine* routine = routine_of(s.kind, s.callee);
    if (s.kind == ir::node_kind::kernel && !routine) {
      int device = -1;
      const cudaKernelNodeParams p = kernel_launch(i, s.callee, at, device);
      if (launch_known(i)) backend::kernel_known::capture(session_, k, i, p, at);
      else backend::kernel_node::capture(session_, k, i, p, at, device);
      return;
    }
    if (s.kind == ir::node_kind::conditional) {  // its values are its cond's, made with the graph
      backend::conditional_node::capture(session_, k, i, {g_.conds[s.callee], s.cond_kind, s.bodies}, s.body, at);
      return;  // its bodies are the rows that follow
    }
    const ir::node& n = *plan_.steps[i].node;
    node_values& v = compute(i, routine);
    switch (n.kind) {
      case ir::node_kind::kernel:  // with a captured routine
        backend::child_node::capture(session_, k, i, routines_.at(i), at);
        break;
      case ir::node_kind::repeat_init:
      case ir::node_kind::repeat_counter:
        backend::kernel_node::capture(session_, k, i, repeat_params(n, v, g_).params(), at);
        break;
      case ir::node_kind::memcpy: backend::memcpy_node::capture(session_, k, i, memcpy_params(v), at, v.device); break;
      case ir::node_kind::memset: backend::memset_node::capture(session_, k, i, memset_params(n, v), at, v.device); break;
      case ir::node_kind::collective: backend::child_node::capture(session_, k, i, routines_.at(i), at); break;
      case ir::node_kind::host: backend::host_node::capture(session_, k, i, host_params(i, v, session_.root()), at); break;
      case ir::node_kind::event_record: backend::event_record_node::capture(session_, k, i, event_params(v), at); break;
      case ir::node_kind::event_wait: backend::event_wait_node::capture(session_, k, i, event_params(v), at); break;
      case ir::node_kind::mem_alloc: backend::alloc_node::capture(session_, k, i, n.callee, v.args[0].as_u64(), at); break;
      case ir::node_kind::mem_free: backend::free_node::capture(session_, k, i, n.callee, at); break;
      case ir::node_kind::child_graph:
        if (!g_.child_at(i)) {
          backend::relaxed_capture_mode aside;
          g_.set_child(i, build_child(g_, n, v));
        }
        backend::child_node::capture(session_, k, i, g_.child_at(i)->graph, at);
        break;
      case ir::node_kind::conditional: break;  // issued above
    }
  }

  const capture_rows& capture_;
  backend::capture_session session_;
  // Captured routines and collectives by step, made before the capture.
  std::map<std::uint32_t, backend::graph_handle> routines_;
};

}  // namespace

void capture_graph(built_graph& g) { capture_builder(g).run(); }

}  // namespace cgraph::detail
