// Executes an explicit plan: one CUDA "add node" call per step, in plan order.

#include "build_steps.hpp"
#include "compat.hpp"
#include "node_params.hpp"
#include "repeat_counter.hpp"

#include <cgraph/runtime/error.hpp>

#include <fmt/format.h>

namespace cgraph::detail {

built_graph::~built_graph() {
  destroy_owned(graph);
  for (void* p : device_memory) free_owned(p);
}

namespace {

class builder : step_builder {
public:
  explicit builder(built_graph& out) : step_builder(out) {}

  void run() {
    prepare();
    CGRAPH_CUDA(cudaGraphCreate(&g_.graph, 0), g_.at(ir_.range));
    ledger(owned::graph, 1);
    create_conds(plan::location{}, g_.graph);
    for (std::uint32_t i = 0; i < plan_.steps.size(); ++i) add(i);
  }

private:
  cudaGraph_t parent_graph(plan::location l) const {
    return l.step == ir::none ? g_.graph : g_.bodies[l.step][l.body];
  }

  void add(std::uint32_t index) {
    const plan::step& s = plan_.steps[index];
    const ir::node& n = *s.node;
    node_record& r = g_.records[index];
    where at = g_.at(n.range);
    cudaGraph_t graph = parent_graph(s.parent);
    auto& deps = deps_;  // reused: one allocation per build, not per node
    deps.clear();
    for (auto d : s.deps) deps.push_back(g_.records[d].handle);
    r.values = compute_values(*g_.program, g_.graph_index, n, g_.values, g_.conds, routine_of(n) != nullptr);

    switch (n.kind) {
      case ir::node_kind::kernel: {
        if (const captured_routine* routine = routine_of(n)) {
          cudaGraph_t child = capture_routine(*routine, r.values, g_.symbols->capture_mode, at);
          cudaError_t status = CGRAPH_CUDA_STATUS(cudaGraphAddChildGraphNode(&r.handle, graph, deps.data(), deps.size(), child));
          destroy_owned(child);  // the node holds a clone
          check(status, "cudaGraphAddChildGraphNode", at);
          break;
        }
        auto p = kernel_params(kernel_function(*g_.program, *g_.symbols, n.callee, at), r.values, pointers_);
        CGRAPH_CUDA(cudaGraphAddKernelNode(&r.handle, graph, deps.data(), deps.size(), &p), at);
        break;
      }
      case ir::node_kind::repeat_init:
      case ir::node_kind::repeat_counter: {
        repeat_count(n, at);
        auto p = repeat_params(n, r.values, g_.repeat_counts, g_.conds);
        CGRAPH_CUDA(cudaGraphAddKernelNode(&r.handle, graph, deps.data(), deps.size(), p.params()), at);
        break;
      }
      case ir::node_kind::memcpy: {
        const auto& a = r.values.args;
        CGRAPH_CUDA(cudaGraphAddMemcpyNode1D(&r.handle, graph, deps.data(), deps.size(), as_pointer(a[0]), as_pointer(a[1]),
                                             a[2].as_u64(), cudaMemcpyDefault),
                    at);
        break;
      }
      case ir::node_kind::memset: {
        cudaMemsetParams p = memset_params(n, r.values);
        CGRAPH_CUDA(cudaGraphAddMemsetNode(&r.handle, graph, deps.data(), deps.size(), &p), at);
        break;
      }
      case ir::node_kind::host: {
        r.slot = make_host_slot(n, r.values, g_.graph, at);
        cudaHostNodeParams p{gen::run_host_slot, as_user_data(r.slot)};
        CGRAPH_CUDA(cudaGraphAddHostNode(&r.handle, graph, deps.data(), deps.size(), &p), at);
        break;
      }
      case ir::node_kind::child_graph:
        r.child = build_child(n, r.values);
        CGRAPH_CUDA(cudaGraphAddChildGraphNode(&r.handle, graph, deps.data(), deps.size(), r.child->graph), at);
        break;
      case ir::node_kind::conditional: {
        cudaGraphNodeParams p = conditional_params(n);
        CGRAPH_CUDA(cudaGraphAddNode(&r.handle, graph, deps.data(), nullptr, deps.size(), &p), at);
        g_.bodies[index].assign(p.conditional.phGraph_out, p.conditional.phGraph_out + n.bodies.size());
        for (std::uint32_t k = 0; k < n.bodies.size(); ++k) create_conds(plan::location{index, k}, g_.bodies[index][k]);
        break;
      }
    }
  }

  std::vector<cudaGraphNode_t> deps_;
  std::vector<void*> pointers_;
};

}  // namespace

std::shared_ptr<built_graph> build_graph(std::shared_ptr<const program_state> p,
                                         std::shared_ptr<const resolved_symbols> symbols, std::uint32_t index,
                                         std::vector<std::optional<ir::value>> params) {
  auto g = std::make_shared<built_graph>();
  g->program = std::move(p);
  g->symbols = std::move(symbols);
  g->graph_index = index;
  g->params = std::move(params);
  // On a throw, ~built_graph destroys whatever was made.
  if (g->symbols->how == strategy::stream_capture) capture_graph(*g);
  else builder(*g).run();
  return g;
}

}  // namespace cgraph::detail
