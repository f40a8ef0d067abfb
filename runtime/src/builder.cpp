// Executes an explicit plan: one CUDA "add node" call per step, in plan order.

#include "built_graph.hpp"
#include "compat.hpp"
#include "node_params.hpp"
#include "repeat_counter.hpp"

#include <cgraph/runtime/error.hpp>

#include <cstdio>
#include <exception>

#include <fmt/format.h>

namespace cgraph::detail {

built_graph::~built_graph() {
  // Destructors never throw; a failure here can only be reported.
  if (graph) cudaGraphDestroy(graph);
  for (void* p : device_memory) cudaFree(p);
}

// Exceptions must not cross into the driver.
void CUDART_CB run_host_callback(void* data) {
  auto* slot = static_cast<host_slot*>(data);
  try {
    (*slot->function)(slot->args);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cgraph: a host callback threw: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "cgraph: a host callback threw an exception\n");
  }
}

namespace {

void CUDART_CB destroy_host_slot(void* data) { delete static_cast<host_slot*>(data); }

char kind_of(ir::type t) { return t.is_pointer() ? 'p' : t.is_float() ? 'f' : t.is_bool() ? 'b' : 'i'; }

class builder {
public:
  builder(built_graph& out) : g_(out), ir_(out.ir()), plan_(out.plan()), program_(out.program->program) {}

  void run() {
    g_.values = evaluate_pool(*g_.program, g_.graph_index, g_.params);
    g_.cond_defaults = cond_defaults(*g_.program, g_.graph_index, g_.values);
    g_.conds.assign(ir_.conds.size(), 0);
    g_.repeat_counts.assign(ir_.conds.size(), nullptr);
    g_.records.resize(plan_.steps.size());
    g_.bodies.resize(plan_.steps.size());
    CGRAPH_CUDA(cudaGraphCreate(&g_.graph, 0), g_.at(ir_.range));
    create_conds(plan::location{}, g_.graph);
    for (std::uint32_t i = 0; i < plan_.steps.size(); ++i) add(i);
  }

private:
  cudaGraph_t parent_graph(plan::location l) const {
    return l.step == ir::none ? g_.graph : g_.bodies[l.step][l.body];
  }

  // The handles of every cond whose conditional node lives in graph `where`.
  void create_conds(plan::location where, cudaGraph_t graph) {
    for (std::uint32_t c = 0; c < ir_.conds.size(); ++c) {
      if (!(plan_.cond_homes[c] == where)) continue;
      bool has_default = ir_.conds[c].default_expr != ir::none;
      CGRAPH_CUDA(cudaGraphConditionalHandleCreate(&g_.conds[c], graph, g_.cond_defaults[c],
                                                   has_default ? cudaGraphCondAssignDefault : 0),
                  g_.at(ir_.conds[c].range));
    }
  }

  void add(std::uint32_t index) {
    const plan::step& s = plan_.steps[index];
    const ir::node& n = *s.node;
    node_record& r = g_.records[index];
    where at = g_.at(n.range);
    cudaGraph_t graph = parent_graph(s.parent);
    std::vector<cudaGraphNode_t> deps;
    deps.reserve(s.deps.size());
    for (auto d : s.deps) deps.push_back(g_.records[d].handle);
    r.values = compute_values(*g_.program, g_.graph_index, n, g_.values, g_.conds);

    switch (n.kind) {
      case ir::node_kind::kernel: {
        std::vector<void*> pointers;
        auto p = kernel_params(kernel_function(*g_.program, *g_.symbols, n.callee, at), r.values, pointers);
        CGRAPH_CUDA(cudaGraphAddKernelNode(&r.handle, graph, deps.data(), deps.size(), &p), at);
        break;
      }
      case ir::node_kind::repeat_init: {
        require_driver("a 'repeat' loop", conditional_nodes_version);
        void*& count = g_.repeat_counts[n.cond];
        CGRAPH_CUDA(cudaMalloc(&count, sizeof(unsigned)), at);
        g_.device_memory.push_back(count);
        auto p = repeat_params(n, r.values, g_.repeat_counts, g_.conds);
        CGRAPH_CUDA(cudaGraphAddKernelNode(&r.handle, graph, deps.data(), deps.size(), p.get()), at);
        break;
      }
      case ir::node_kind::repeat_counter: {
        auto p = repeat_params(n, r.values, g_.repeat_counts, g_.conds);
        CGRAPH_CUDA(cudaGraphAddKernelNode(&r.handle, graph, deps.data(), deps.size(), p.get()), at);
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
      case ir::node_kind::host: add_host(n, r, graph, deps, at); break;
      case ir::node_kind::child_graph: {
        std::vector<std::optional<ir::value>> child_params(r.values.values.begin(), r.values.values.end());
        child_params.resize(program_.graphs[n.callee].params.size());  // the rest take their defaults
        r.child = build_graph(g_.program, g_.symbols, n.callee, std::move(child_params));
        CGRAPH_CUDA(cudaGraphAddChildGraphNode(&r.handle, graph, deps.data(), deps.size(), r.child->graph), at);
        break;
      }
      case ir::node_kind::conditional: add_conditional(index, n, r, graph, deps, at); break;
    }
  }

  void add_host(const ir::node& n, node_record& r, cudaGraph_t graph, const std::vector<cudaGraphNode_t>& deps,
                const where& at) {
    const ir::host_callback& h = program_.hosts[n.callee];
    const auto& entry = g_.symbols->hosts[n.callee];
    if (!entry.function)
      throw build_error(at.str(), fmt::format("host callback '{}' is not in the registry (register it with "
                                              "registry.host(\"{}\", callable))", h.name, h.name));
    std::string declared;
    for (const auto& p : h.params) declared += kind_of(p.t);
    if (declared != entry.param_kinds)
      throw build_error(at.str(), fmt::format("host callback '{}' is declared with parameters of kinds ({}) but the "
                                              "registered callable takes ({}) (i integer, f float, b bool, p pointer)",
                                              h.name, declared, entry.param_kinds));
    auto* slot = new host_slot{entry.function, r.values.values};
    cudaUserObject_t owner = nullptr;
    cudaError_t status = cudaUserObjectCreate(&owner, slot, destroy_host_slot, 1, cudaUserObjectNoDestructorSync);
    if (status != cudaSuccess) delete slot;
    check(status, "cudaUserObjectCreate", at);
    // The graph takes over our reference: the slot lives while any graph or exec needs it.
    CGRAPH_CUDA(cudaGraphRetainUserObject(g_.graph, owner, 1, cudaGraphUserObjectMove), at);
    r.slot = slot;
    cudaHostNodeParams p{run_host_callback, slot};
    CGRAPH_CUDA(cudaGraphAddHostNode(&r.handle, graph, deps.data(), deps.size(), &p), at);
  }

  void add_conditional(std::uint32_t index, const ir::node& n, node_record& r, cudaGraph_t graph,
                       const std::vector<cudaGraphNode_t>& deps, const where& at) {
    bool needs_12_8 = n.cond_kind == ir::cond_kind::if_else || n.cond_kind == ir::cond_kind::switch_cases;
    require_driver(n.cond_kind == ir::cond_kind::if_else        ? "an 'if' with 'else'"
                   : n.cond_kind == ir::cond_kind::switch_cases ? "a 'switch'"
                   : n.cond_kind == ir::cond_kind::while_loop   ? "a 'while' loop"
                                                                : "an 'if'",
                   needs_12_8 ? if_else_switch_version : conditional_nodes_version);
    cudaGraphNodeParams p{};
    p.type = cudaGraphNodeTypeConditional;
    p.conditional.handle = g_.conds[n.cond];
    p.conditional.type = n.cond_kind == ir::cond_kind::while_loop     ? cudaGraphCondTypeWhile
                         : n.cond_kind == ir::cond_kind::switch_cases ? cudaGraphCondTypeSwitch
                                                                      : cudaGraphCondTypeIf;
    p.conditional.size = static_cast<unsigned>(n.bodies.size());
    CGRAPH_CUDA(cudaGraphAddNode(&r.handle, graph, deps.data(), nullptr, deps.size(), &p), at);
    g_.bodies[index].assign(p.conditional.phGraph_out, p.conditional.phGraph_out + n.bodies.size());
    for (std::uint32_t k = 0; k < n.bodies.size(); ++k) create_conds(plan::location{index, k}, g_.bodies[index][k]);
  }

  built_graph& g_;
  const ir::graph& ir_;
  const plan::explicit_plan& plan_;
  const ir::program& program_;
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
  builder(*g).run();  // on a throw, ~built_graph destroys whatever was made
  return g;
}

}  // namespace cgraph::detail
