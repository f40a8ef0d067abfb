// The explicit strategy on the run-time path: walks an explicit plan and hands each step's
// values to the backend's node operations (backend/node_ops.hpp), in plan order.

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
    create_conds(plan::location{}, g_.graph);
    for (std::uint32_t i = 0; i < plan_.steps.size(); ++i) add(i);
    refresh_late_readers();
    apply_attributes();
  }

private:
  void add(std::uint32_t i) {
    const plan::step& s = plan_.steps[i];
    const ir::node& n = *s.node;
    where at = g_.at(n.range);
    cudaGraph_t parent = parent_graph(s.parent);
    const backend::node_deps deps = dependencies(s);
    const captured_routine* routine = routine_of(n);
    if (n.kind == ir::node_kind::kernel && !routine) {
      int device = -1;
      const cudaKernelNodeParams p = kernel_launch(i, n.callee, at, device);
      if (launch_known(i)) backend::kernel_known::add(g_, i, parent, deps, p, at);
      else backend::kernel_node::add(g_, i, parent, deps, p, at, device);
      return;
    }
    if (n.kind == ir::node_kind::conditional) {  // its values are its cond's, made with the graph
      backend::conditional_node::add(g_, i, parent, deps, {g_.conds[n.cond], n.cond_kind, n.bodies_count},
                                     plan_.first_body[i], at);
      for (std::uint32_t k = 0; k < n.bodies_count; ++k)
        create_conds(plan::location{i, k}, g_.bodies[plan_.first_body[i] + k]);
      return;
    }
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
  backend::node_deps dependencies(const plan::step& s) {
    if (s.deps.size() == 1) return {&g_.nodes[s.deps[0]], 1};
    deps_.clear();
    for (auto d : s.deps) deps_.push_back(g_.nodes[d]);
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
