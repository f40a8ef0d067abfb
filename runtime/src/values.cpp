// Parameter binding and the values of nodes: everything a build or an update computes before
// it calls CUDA, so a bad value is reported before anything changes.

#include "built_graph.hpp"

#include <cgraph/compiler/printers.hpp>
#include <cgraph/runtime/error.hpp>

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

namespace cgraph::detail {

namespace {

// A parameter value of type t from a value the user gave or an argument produced.
std::optional<std::string> fit(ir::value& v, ir::type t) {
  using kind = ir::value::kind;
  if (t.is_float()) {
    if (v.k == kind::integer) v = ir::value::floating(v.as<double>());
    if (v.k != kind::floating) return "a number";
  } else if (t.is_integer()) {
    if (v.k != kind::integer) return "an integer";
  } else if (t.is_bool()) {
    if (v.k != kind::boolean) return "a bool";
  } else if (t.is_pointer()) {
    if (v.k != kind::pointer) return "a pointer";
  } else if (t.k == ir::type::kind::cond) {
    // From `call`, the caller's handle; from the user, a cudaGraphConditionalHandle of the
    // graph this one is embedded in.
    if (v.k == kind::integer) v = ir::value::cond(static_cast<std::uint64_t>(v.i));
    if (v.k != kind::cond || v.bits == 0) return "a cudaGraphConditionalHandle (not 0)";
    return std::nullopt;
  } else if (t.is_handle()) {
    if (v.k != kind::pointer || v.bits == 0)
      return t.k == ir::type::kind::event ? "a cudaEvent_t (not null)" : "an ncclComm_t (not null)";
  } else if (t.is_struct()) {
    if (v.k != kind::structure || v.bits == 0) return fmt::format("a struct of {} bytes", t.bytes());
    if (static_cast<std::uint64_t>(v.i) != t.bytes())
      return fmt::format("a struct of {} bytes, not one of {}", t.bytes(), v.i);
    return std::nullopt;
  }
  auto c = ir::convert(v, t);
  if (!c.error.empty()) return c.error;
  return std::nullopt;
}

// A failed evaluation, as a build_error at its expression.
[[noreturn]] void fail_at(const program_state& p, const ir::eval_error& e) {
  throw build_error(p.source.position(e.range.begin), e.message);
}

}  // namespace

graph_dependencies index_graph(const ir::graph& g, const plan::explicit_plan& plan) {
  graph_dependencies out;
  out.exprs = ir::index_dependencies(g);
  out.steps_by_param.resize(g.params.size());
  out.cond_defaults_by_param.assign(g.params.size(), false);
  std::vector<std::uint32_t> reads;
  for (std::uint32_t step = 0; step < plan.steps.size(); ++step) {
    const ir::node& n = *plan.steps[step].node;
    reads.clear();
    ir::for_each_argument(g, n, [&](const ir::argument& a) {
      if (a.expr < g.exprs.size()) {
        const auto& p = out.exprs.expr_params[a.expr];
        reads.insert(reads.end(), p.begin(), p.end());
      }
    });
    std::sort(reads.begin(), reads.end());
    reads.erase(std::unique(reads.begin(), reads.end()), reads.end());
    for (auto p : reads) out.steps_by_param[p].push_back(step);
  }
  for (const auto& c : g.conds)
    if (c.default_expr != ir::none)
      for (auto p : out.exprs.expr_params[c.default_expr]) out.cond_defaults_by_param[p] = true;
  return out;
}

std::uint32_t find_param(const program_state& p, std::uint32_t index, std::string_view name) {
  const ir::graph& g = p.program.graphs[index];
  auto it = std::find_if(g.params.begin(), g.params.end(), [&](const ir::parameter& x) { return x.name == name; });
  if (it == g.params.end())
    throw build_error(p.source.position(g.range.begin), fmt::format("graph '{}' has no parameter '{}'", g.name, name));
  return static_cast<std::uint32_t>(it - g.params.begin());
}

void bind_param(const program_state& p, std::uint32_t index, std::uint32_t param, const arg& a, param_values& out) {
  const ir::parameter& x = p.program.graphs[index].params[param];
  ir::value v = a.value();
  if (auto problem = fit(v, x.t))
    throw build_error(p.source.position(x.range.begin),
                      fmt::format("parameter '{}' of type '{}': {}", x.name, ir::to_string(x.t, p.program.structs),
                                  problem->rfind("value", 0) == 0 ? *problem : "expects " + *problem));
  out.set(param, v);
}

param_values bind_params(const program_state& p, std::uint32_t index, const args& values) {
  const ir::graph& g = p.program.graphs[index];
  param_values out(g.params.size());
  for (const auto& [name, a] : values) {
    std::uint32_t param = find_param(p, index, name);
    bind_param(p, index, param, a, out);
  }
  for (std::size_t i = 0; i < g.params.size(); ++i)
    if (!out[i] && g.params[i].default_expr == ir::none)
      throw build_error(p.source.position(g.params[i].range.begin),
                        fmt::format("graph '{}' needs a value for parameter '{}'", g.name, g.params[i].name));
  return out;
}

std::vector<ir::value> evaluate_pool(const program_state& p, std::uint32_t index,
                                     const param_values& params) {
  const ir::graph& g = p.program.graphs[index];
  auto r = ir::evaluate(g, params.view());
  if (r.error) fail_at(p, *r.error);
  // A defaulted parameter takes its type's form (an integer default of an f32 parameter is a float).
  for (std::size_t i = 0; i < g.exprs.size(); ++i)
    if (g.exprs[i].op == ir::op::param && g.params[g.exprs[i].index].t.is_float() &&
        r.values[i].k == ir::value::kind::integer)
      r.values[i] = ir::value::floating(static_cast<double>(r.values[i].i));
  return std::move(r.values);
}

void compute_values(const program_state& p, std::uint32_t index, const ir::node& n, const std::vector<ir::value>& pool,
                    const backend::graph_state& state, node_values& out, bool kernel_values) {
  const ir::graph& g = p.program.graphs[index];
  out.args.clear();
  out.values.clear();
  out.struct_bytes.clear();
  // `out` may hold another node's values (an update reuses its buffers): a node that is not a
  // kernel must not keep a kernel's launch dimensions, or it compares as changed.
  out.grid = dim3(1, 1, 1);
  out.block = dim3(1, 1, 1);
  out.shared_bytes = 0;
  out.args.reserve(n.args.size());
  auto value_of = [&](const ir::argument& a) {
    const ir::expr& e = g.exprs[a.expr];
    // Handles and addresses made while the graph is built: read where they are kept.
    if (e.op == ir::op::cond_ref) return ir::value::cond(state.conds[e.index]);
    if (e.op == ir::op::alloc_ref) return ir::value::pointer(reinterpret_cast<std::uint64_t>(state.allocations[e.index]));
    if (ir::is_failure(pool[a.expr])) fail_at(p, ir::failure_of(g, pool, pool[a.expr]));
    return pool[a.expr];
  };
  auto fail = [&](const ir::argument& a, std::size_t i, const char* part, source_range at, const std::string& error) {
    source_range r = at.end > at.begin ? at : a.range.end > a.range.begin ? a.range : n.range;
    throw build_error(p.source.position(r.begin), fmt::format("{}: {}", part ? std::string(part) : describe_argument(p.program, n, i), error));
  };
  // A struct's bytes go to struct_bytes, reserved first: the values point into it.
  std::size_t struct_size = 0;
  for (const auto& a : n.args) struct_size += a.target.is_struct() ? a.target.bytes() : 0;
  out.struct_bytes.reserve(struct_size);
  auto convert = [&](const ir::argument& a, std::size_t i, const char* part) {
    if (a.target.is_struct()) {
      ir::converted c;
      c.size = a.target.bytes();
      c.indirect = true;
      const std::uint64_t offset = out.struct_bytes.size();
      std::memcpy(c.bytes.data(), &offset, sizeof offset);
      out.struct_bytes.resize(offset + a.target.bytes());
      if (auto error = ir::store_struct(g, pool, value_of(a), a.target, out.struct_bytes.data() + offset))
        fail(a, i, part, error->range, error->message);
      return c;
    }
    auto c = ir::convert(value_of(a), a.target, a.check);
    if (!c.error.empty()) fail(a, i, part, {}, c.error);
    return c;
  };
  if (n.kind == ir::node_kind::kernel) {
    static constexpr const char* grid_parts[] = {"grid dimension x", "grid dimension y", "grid dimension z"};
    static constexpr const char* block_parts[] = {"block dimension x", "block dimension y", "block dimension z"};
    unsigned grid[3], block[3];
    for (int i = 0; i < 3; ++i) {
      grid[i] = static_cast<unsigned>(convert(n.grid[i], 0, grid_parts[i]).as_u64());
      block[i] = static_cast<unsigned>(convert(n.block[i], 0, block_parts[i]).as_u64());
    }
    out.grid = dim3(grid[0], grid[1], grid[2]);
    out.block = dim3(block[0], block[1], block[2]);
    out.shared_bytes = static_cast<unsigned>(convert(n.shared_bytes, 0, "dynamic shared memory bytes").as_u64());
  }
  if (n.kind == ir::node_kind::conditional) return;
  out.enabled = -1;
  out.device = -1;
  if (n.attributes != ir::none) {
    const ir::node_attributes& at = g.attributes[n.attributes];
    if (at.enabled.expr != ir::none)
      out.enabled = static_cast<std::int8_t>(convert(at.enabled, 0, "attribute 'enabled'").as_u64() != 0);
    if (at.device.expr != ir::none) {
      const std::uint64_t device = convert(at.device, 0, "the device").as_u64();
      if (device > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
        fail(at.device, 0, "the device", {}, fmt::format("{} is not a device number", device));
      out.device = static_cast<int>(device);
    }
  }
  for (std::size_t i = 0; i < n.args.size(); ++i) {
    const ir::argument& a = n.args[i];
    out.args.push_back(convert(a, i, nullptr));
    if (n.kind == ir::node_kind::host || n.kind == ir::node_kind::child_graph ||
        (kernel_values && n.kind == ir::node_kind::kernel)) {
      ir::value v = value_of(a);
      if (a.target.is_float() && v.k == ir::value::kind::integer) v = ir::value::floating(static_cast<double>(v.i));
      if (a.target.is_struct())
        v = ir::value::structure(out.struct_bytes.data() + out.args.back().as_u64(), a.target.bytes());
      out.values.push_back(v);
    }
  }
}

std::vector<unsigned> cond_defaults(const program_state& p, std::uint32_t index, const std::vector<ir::value>& pool) {
  const ir::graph& g = p.program.graphs[index];
  std::vector<unsigned> out(g.conds.size(), 0);
  for (std::size_t i = 0; i < g.conds.size(); ++i) {
    if (g.conds[i].default_expr == ir::none) continue;
    if (ir::is_failure(pool[g.conds[i].default_expr])) fail_at(p, ir::failure_of(g, pool, pool[g.conds[i].default_expr]));
    auto c = ir::convert(pool[g.conds[i].default_expr], ir::type::of(ir::scalar::u32));
    if (!c.error.empty())
      throw build_error(p.source.position(g.conds[i].range.begin),
                        fmt::format("the initial value of cond '{}': {}", g.conds[i].name, c.error));
    out[i] = static_cast<unsigned>(c.as_u64());
  }
  return out;
}

std::shared_ptr<const resolved_symbols> resolve(const program_state& p, const registry& r, const build_options& options) {
  auto out = std::make_shared<resolved_symbols>();
  for (const auto& k : p.program.kernels) {
    out->routines.push_back(k.library == ir::none ? r.find_routine(k.name) : nullptr);
    const auto* e = k.library == ir::none ? r.find_kernel(k.name) : nullptr;
    if (!e && k.library == ir::none && k.symbol != k.name) e = r.find_kernel(k.symbol);
    out->registered.push_back(e ? *e : registry::kernel_entry{});
  }
  for (const auto& h : p.program.hosts) {
    const auto* e = r.find_host(h.name);
    out->hosts.push_back(e ? *e : registry::host_entry{});
  }
  out->module_directory = options.module_directory;
  out->allow_module_paths_outside_directory = options.allow_module_paths_outside_directory;
  out->how = options.strategy;
  out->capture_mode = options.capture_mode == capture_mode::global    ? cudaStreamCaptureModeGlobal
                      : options.capture_mode == capture_mode::relaxed ? cudaStreamCaptureModeRelaxed
                                                                      : cudaStreamCaptureModeThreadLocal;
  out->functions = std::make_unique<std::atomic<const void*>[]>(p.program.kernels.size());
  for (std::size_t i = 0; i < p.program.kernels.size(); ++i) out->functions[i] = nullptr;
  return out;
}

}  // namespace cgraph::detail
