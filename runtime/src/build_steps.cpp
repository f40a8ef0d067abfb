#include "build_steps.hpp"
#include "node_params.hpp"

#include <cgraph/runtime/backend/capture_session.hpp>
#include <cgraph/runtime/backend/node_ops.hpp>
#include <cgraph/runtime/error.hpp>

#include <fmt/format.h>

namespace cgraph::detail {

built_graph::built_graph(std::shared_ptr<const program_state> p, std::shared_ptr<const resolved_symbols> s,
                         std::uint32_t index, param_values parameters)
    : graph_state(p->plans[index].steps.size(), p->plans[index].body_graphs, p->program.graphs[index].conds.size(),
                  p->program.graphs[index].allocations.size()),
      program(std::move(p)), symbols(std::move(s)), graph_index(index), templates(&program->templates(index)),
      params(std::move(parameters)) {
  graph_site = at(ir().range);
}

step_builder::step_builder(built_graph& out) : g_(out), ir_(out.ir()), plan_(out.plan()) {}

void step_builder::prepare() {
  g_.values = evaluate_pool(g_);
  g_.cond_defaults = g_.templates->cond_defaults ? *g_.templates->cond_defaults
                                                 : cond_defaults(*g_.program, g_.graph_index, g_.values);
  memo_.reset(g_.templates->memo_slots);
  g_.port_edges = plan_.port_steps;  // the program's: it outlives the build
}

void step_builder::create_conds_of(std::uint32_t n, cudaGraph_t graph) {
  for (const std::uint32_t c : plan_.conds_by_graph.of(n)) {
    backend::create_cond(g_, c, graph, g_.cond_defaults[c], ir_.conds[c].default_expr != ir::none,
                         g_.at(ir_.conds[c].range));
  }
}

std::unique_ptr<host_slot> make_host_slot(const built_graph& g, const ir::node& n, const node_values& v, const where& at) {
  const ir::host_callback& h = g.program->program.hosts[n.callee];
  const auto& entry = g.symbols->hosts[n.callee];
  if (!entry.function)
    throw build_error(at.str(), fmt::format("host callback '{}' is not in the registry (register it with "
                                            "registry.host(\"{}\", callable))", h.name, h.name));
  std::string declared;
  for (const auto& p : h.params) declared += kind_of(p.t);
  if (declared != entry.param_kinds)
    throw build_error(at.str(), fmt::format("host callback '{}' is declared with parameters of kinds ({}) but the "
                                            "registered callable takes ({}) (i integer, f float, b bool, p pointer)",
                                            h.name, declared, entry.param_kinds));
  return std::make_unique<host_slot>(entry.function, v.values, v.struct_bytes);
}

cudaHostNodeParams step_builder::host_params(std::uint32_t step, const node_values& v, cudaGraph_t owner) {
  const ir::node& n = *plan_.steps[step].node;
  where at = g_.at(n.range);
  return backend::own_host_slot(make_host_slot(g_, n, v, at), owner, at);
}

std::shared_ptr<built_graph> build_child(const built_graph& g, const ir::node& n, const node_values& v) {
  param_values params(g.program->program.graphs[n.callee].params.size());  // the rest take their defaults
  for (std::size_t i = 0; i < v.values.size(); ++i) params.set(i, v.values[i]);
  return build_graph(g.program, g.symbols, n.callee, std::move(params));
}

void step_builder::refresh_late_readers() {
  for (std::uint32_t s : plan_.late_readers) {
    const ir::node& n = *plan_.steps[s].node;
    if (routine_of(n)) continue;  // captured before any handle exists: a routine gets 0 for a cond
    where at = g_.at(n.range);
    node_values& v = compute(s, false);
    backend::kernel_node::refresh(g_, s, kernel_params(kernel_function(*g_.program, *g_.symbols, n.callee, at), v, pointers_),
                                  at);
  }
}

void step_builder::apply_attributes() {
  for (std::uint32_t s : plan_.attributed) {
    const ir::node& n = *plan_.steps[s].node;
    const ir::node_attributes& at = ir_.attributes[n.attributes];
    if (const node_values& v = compute(s, false); v.enabled >= 0) backend::set_enabled(g_, s, v.enabled != 0);
    if (at.priority.expr == ir::none && at.cluster[0].expr == ir::none) continue;
    auto constant = [&](const ir::argument& a) { return a.expr == ir::none ? 0 : ir_.exprs[a.expr].constant().i; };
    int priority = static_cast<int>(constant(at.priority));
    dim3 cluster(static_cast<unsigned>(constant(at.cluster[0])), static_cast<unsigned>(constant(at.cluster[1])),
                 static_cast<unsigned>(constant(at.cluster[2])));
    backend::kernel_node::set_attributes(g_, s, at.priority.expr == ir::none ? nullptr : &priority, cluster,
                                         g_.at(n.range));
  }
}

backend::graph_handle capture_routine(const captured_routine& routine, const node_values& v, cudaStreamCaptureMode mode,
                                      const where& at) {
  return backend::capture_routine([&](cudaStream_t s) { routine(s, v.values, v.grid, v.block); }, mode, at);
}

backend::graph_handle capture_collectives(const built_graph& g, const ir::node& n, const node_values& v, const where& at) {
  std::vector<backend::collective_call> calls;
  collective_calls(g, n, v, calls);
  return backend::capture_collectives(calls, g.symbols->capture_mode, at);
}

}  // namespace cgraph::detail
