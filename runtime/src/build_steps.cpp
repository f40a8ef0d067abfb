#include "build_steps.hpp"

#include "compat.hpp"

#include <cgraph/generated.hpp>
#include <cgraph/runtime/error.hpp>

#include <fmt/format.h>

namespace cgraph::detail {

namespace {

void CUDART_CB destroy_host_slot(void* data) { delete static_cast<host_slot*>(data); }

char kind_of(ir::type t) { return t.is_pointer() ? 'p' : t.is_float() ? 'f' : t.is_bool() ? 'b' : 'i'; }

}  // namespace

step_builder::step_builder(built_graph& out) : g_(out), ir_(out.ir()), plan_(out.plan()), program_(out.program->program) {}

void step_builder::prepare() {
  g_.values = evaluate_pool(*g_.program, g_.graph_index, g_.params);
  g_.cond_defaults = cond_defaults(*g_.program, g_.graph_index, g_.values);
  g_.conds.assign(ir_.conds.size(), 0);
  g_.repeat_counts.assign(ir_.conds.size(), nullptr);
  g_.records.resize(plan_.steps.size());
  g_.bodies.resize(plan_.steps.size());
}

void step_builder::create_conds(plan::location where, cudaGraph_t graph) {
  auto it = plan_.conds_by_home.find(plan::home_key(where));
  if (it == plan_.conds_by_home.end()) return;
  for (std::uint32_t c : it->second) {
    bool has_default = ir_.conds[c].default_expr != ir::none;
    CGRAPH_CUDA(cudaGraphConditionalHandleCreate(&g_.conds[c], graph, g_.cond_defaults[c],
                                                 has_default ? cudaGraphCondAssignDefault : 0),
                g_.at(ir_.conds[c].range));
  }
}

host_slot* step_builder::make_host_slot(const ir::node& n, const node_values& v, cudaGraph_t owner, const where& at) {
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
  auto* slot = new host_slot(entry.function, v.values);
  cudaUserObject_t object = nullptr;
  cudaError_t status = cudaUserObjectCreate(&object, slot, destroy_host_slot, 1, cudaUserObjectNoDestructorSync);
  if (status != cudaSuccess) delete slot;
  check(status, "cudaUserObjectCreate", at);
  // The graph takes over our reference: the slot lives while any graph or exec needs it.
  status = cudaGraphRetainUserObject(owner, object, 1, cudaGraphUserObjectMove);
  if (status != cudaSuccess) cudaUserObjectRelease(object, 1);
  check(status, "cudaGraphRetainUserObject", at);
  return slot;
}

cudaGraphNodeParams step_builder::conditional_params(const ir::node& n) const {
  return gen::conditional_params(g_.conds[n.cond], n.cond_kind, static_cast<unsigned>(n.bodies.size()));
}

std::shared_ptr<built_graph> step_builder::build_child(const ir::node& n, const node_values& v) const {
  std::vector<std::optional<ir::value>> params(v.values.begin(), v.values.end());
  params.resize(program_.graphs[n.callee].params.size());  // the rest take their defaults
  return build_graph(g_.program, g_.symbols, n.callee, std::move(params));
}

void* step_builder::repeat_count(const ir::node& n, const where& at) {
  void*& count = g_.repeat_counts[n.cond];
  if (!count) {
    require_driver("a 'repeat' loop", conditional_nodes_version);
    CGRAPH_CUDA(cudaMalloc(&count, sizeof(unsigned)), at);
    ledger(owned::device_memory, 1);
    g_.device_memory.push_back(count);
  }
  return count;
}

const captured_routine* step_builder::routine_of(const ir::node& n) const {
  return n.kind == ir::node_kind::kernel ? g_.symbols->routines[n.callee].get() : nullptr;
}

cudaGraph_t capture_routine(const captured_routine& routine, const node_values& v, cudaStreamCaptureMode mode,
                            const where& at) {
  cudaStream_t side = nullptr;
  CGRAPH_CUDA(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking), at);
  cudaGraph_t graph = nullptr;
  cudaError_t status = CGRAPH_CUDA_STATUS(cudaStreamBeginCapture(side, mode));
  if (status == cudaSuccess) {
    try {
      routine(side, v.values, v.grid, v.block);
    } catch (...) {
      cudaStreamEndCapture(side, &graph);  // never leave the stream capturing
      if (graph) cudaGraphDestroy(graph);
      cudaStreamDestroy(side);
      throw;
    }
    status = CGRAPH_CUDA_STATUS(cudaStreamEndCapture(side, &graph));
  }
  cudaStreamDestroy(side);
  if (status != cudaSuccess && graph) cudaGraphDestroy(graph);
  check(status, "cudaStreamEndCapture (captured routine)", at);
  ledger(owned::graph, 1);
  return graph;
}

}  // namespace cgraph::detail
