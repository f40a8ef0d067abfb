// The explicit strategy on the run-time path: walks an explicit plan and hands each step's
// values to the backend's node operations (backend/node_ops.hpp), in plan order. Its dispatch by
// kind is its own, not the capture walk's (step_builder::make_node): made through a placement,
// the same host instructions ran 2-4% slower on the device (docs/performance.md, run 66).

#include "backend/kernel_known.hpp"
#include "build_steps.hpp"
#include "node_params.hpp"

#include <cgraph/runtime/backend/node_ops.hpp>

namespace cgraph::detail {

namespace {

class builder : step_builder {
public:
  explicit builder(built_graph& out) : step_builder(out) {}

  void run() {
    prepare();
    backend::create_graph(g_, g_.graph_site);
    create_conds(0, g_.graph);
    for (std::uint32_t i = 0; i < plan_.steps.size(); ++i) add(i);
    refresh_late_readers();
    apply_attributes();
  }

private:
  // A kernel and a conditional are added from their step's row alone; other kinds read their
  // IR node.
  void add(std::uint32_t i) {
    const step_row& s = g_.templates->rows[i];
    const where at = site_of(s);
    const cudaGraph_t parent = g_.graph_numbered(s.graph);
    const backend::node_deps deps = dependencies(s);
    const captured_routine* routine = routine_of(s.kind, s.callee);
    if (s.kind == ir::node_kind::kernel && !routine) {
      int device = -1;
      const cudaKernelNodeParams p = kernel_launch(i, s.callee, at, device);
      if (launch_known(i)) backend::kernel_known::add(g_, i, parent, deps, p, at);
      else backend::kernel_node::add(g_, i, parent, deps, p, at, device);
      return;
    }
    if (s.kind == ir::node_kind::conditional) {  // its values are its cond's, made with the graph
      backend::conditional_node::add(g_, i, parent, deps, {g_.conds[s.callee], s.cond_kind, s.bodies}, s.body, at);
      for (std::uint32_t k = 0; k < s.bodies; ++k) create_conds(s.body + k + 1, g_.bodies[s.body + k]);
      return;
    }
    const ir::node& n = *plan_.steps[i].node;
    node_values& v = compute(i, routine != nullptr);

    switch (n.kind) {
      case ir::node_kind::kernel: {  // with a captured routine
        auto child = capture_routine(*routine, v, g_.symbols->capture_mode, at);  // the node holds a clone
        backend::child_node::add(g_, i, parent, deps, child, at);
        break;
      }
      case ir::node_kind::repeat_init:
      case ir::node_kind::repeat_counter:
        backend::repeat_count(g_, n.cond, at);
        backend::kernel_node::add(g_, i, parent, deps, repeat_params(n, v, g_).params(), at);
        break;
      case ir::node_kind::memcpy: backend::memcpy_node::add(g_, i, parent, deps, memcpy_params(v), at, v.device); break;
      case ir::node_kind::memset: backend::memset_node::add(g_, i, parent, deps, memset_params(n, v), at, v.device); break;
      case ir::node_kind::collective: {
        auto child = capture_collectives(g_, n, v, at);  // the node holds a clone
        backend::child_node::add(g_, i, parent, deps, child, at);
        break;
      }
      case ir::node_kind::host: backend::host_node::add(g_, i, parent, deps, host_params(i, v, g_.graph), at); break;
      case ir::node_kind::event_record: backend::event_record_node::add(g_, i, parent, deps, event_params(v), at); break;
      case ir::node_kind::event_wait: backend::event_wait_node::add(g_, i, parent, deps, event_params(v), at); break;
      case ir::node_kind::mem_alloc: backend::alloc_node::add(g_, i, parent, deps, n.callee, v.args[0].as_u64(), at); break;
      case ir::node_kind::mem_free: backend::free_node::add(g_, i, parent, deps, n.callee, at); break;
      case ir::node_kind::child_graph:
        g_.set_child(i, build_child(g_, n, v));
        backend::child_node::add(g_, i, parent, deps, g_.child_at(i)->graph, at);
        break;
      case ir::node_kind::conditional: break;  // added above
    }
  }

  // The handles of step `s`'s dependencies: one (a chain's) read where it is kept, more copied
  // into a list reused by every step (and build).
  backend::node_deps dependencies(const step_row& s) {
    const std::uint32_t* steps = plan_.dep_steps.data() + s.deps;
    if (s.dep_count == 1) return {&g_.nodes[steps[0]], 1};
    deps_.clear();
    for (std::uint32_t k = 0; k < s.dep_count; ++k) deps_.push_back(g_.nodes[steps[k]]);
    return deps_;
  }
};

}  // namespace

std::shared_ptr<built_graph> build_graph(std::shared_ptr<const program_state> p,
                                         std::shared_ptr<const resolved_symbols> symbols, std::uint32_t index,
                                         param_values params) {
  auto g = std::make_shared<built_graph>(std::move(p), std::move(symbols), index, std::move(params));
  // On a throw, the graph state destroys whatever was made.
  if (g->symbols->how == strategy::stream_capture) capture_graph(*g);
  else builder(*g).run();
  return g;
}

}  // namespace cgraph::detail
