// Parameter binding, dependencies, cond defaults and symbol resolution: what a build or an
// update settles before it computes node values (node_values.cpp) and calls CUDA.

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
    if (ir::integer_fits(v, t.s)) return std::nullopt;  // a parameter handle's assignment, every time
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
  // Worded only when it does not fit: a parameter handle's assignment comes here every time.
  ir::converted_bytes bytes;
  if (ir::convert_to(v, t, ir::check::any, bytes) == ir::convert_problem::fits) return std::nullopt;
  return ir::convert(v, t).error;
}

}  // namespace

void fail_at(const program_state& p, const ir::eval_error& e) {
  throw build_error(p.source.position(e.range.begin), e.message);
}

graph_dependencies index_graph(const ir::graph& g, const plan::explicit_plan& plan) {
  graph_dependencies out;
  out.exprs = ir::index_dependencies(g);
  out.steps_by_param.resize(g.params.size());
  out.cond_defaults_by_param.assign(g.params.size(), 0);
  std::vector<std::uint32_t> reads;
  for (std::uint32_t step = 0; step < plan.steps.size(); ++step) {
    const ir::node& n = *plan.steps[step].node;
    reads.clear();
    ir::for_each_argument(g, n, [&](const ir::argument& a) {
      if (a.expr >= g.exprs.size()) return;
      const auto& p = out.exprs.expr_params[a.expr];
      if (!p.empty()) reads.insert(reads.end(), p.begin(), p.end());  // most parts read none
    });
    if (reads.size() > 1) {
      std::sort(reads.begin(), reads.end());
      reads.erase(std::unique(reads.begin(), reads.end()), reads.end());
    }
    for (auto p : reads) out.steps_by_param[p].push_back(step);
  }
  for (const auto& c : g.conds)
    if (c.default_expr != ir::none)
      for (auto p : out.exprs.expr_params[c.default_expr]) out.cond_defaults_by_param[p] = 1;
  for (std::uint32_t i = 0; i < g.allocation_reads.size(); ++i)
    if (g.reads_allocation(i)) (g.exprs[i].op == ir::op::alloc_ref ? out.allocation_refs : out.allocation_readers).push_back(i);
  return out;
}

std::uint32_t find_param(const program_state& p, std::uint32_t index, std::string_view name) {
  const ir::graph& g = p.program.graphs[index];
  auto it = std::find_if(g.params.begin(), g.params.end(), [&](const ir::parameter& x) { return x.name == name; });
  if (it == g.params.end())
    throw build_error(p.source.position(g.range.begin), fmt::format("graph '{}' has no parameter '{}'", g.name, name));
  return static_cast<std::uint32_t>(it - g.params.begin());
}

ir::value checked_param(const program_state& p, std::uint32_t index, std::uint32_t param, const arg& a) {
  const ir::parameter& x = p.program.graphs[index].params[param];
  ir::value v = a.value();
  if (auto problem = fit(v, x.t))
    throw build_error(p.source.position(x.range.begin),
                      fmt::format("parameter '{}' of type '{}': {}", x.name, ir::to_string(x.t, p.program.structs),
                                  problem->rfind("value", 0) == 0 ? *problem : "expects " + *problem));
  return v;
}

void bind_param(const program_state& p, std::uint32_t index, std::uint32_t param, const arg& a, param_values& out) {
  out.set(param, checked_param(p, index, param, a));
}

namespace {
template <typename Named>
param_values bind_named(const program_state& p, std::uint32_t index, const Named& values) {
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
}  // namespace

param_values bind_params(const program_state& p, std::uint32_t index, const args& values) {
  return bind_named(p, index, values);
}
param_values bind_params(const program_state& p, std::uint32_t index, std::span<const named_arg> values) {
  return bind_named(p, index, values);
}

std::vector<unsigned> cond_defaults(const program_state& p, std::uint32_t index, const ir::layered_pool& pool) {
  const ir::graph& g = p.program.graphs[index];
  std::vector<unsigned> out(g.conds.size(), 0);
  for (std::size_t i = 0; i < g.conds.size(); ++i) {
    if (g.conds[i].default_expr == ir::none) continue;
    if (ir::is_failure(pool[g.conds[i].default_expr])) fail_at(p, ir::failure_of(g, pool, pool[g.conds[i].default_expr]));
    // Converted without a message (ir::convert_to), which only a value that does not fit needs.
    const ir::value& v = pool[g.conds[i].default_expr];
    const ir::type u32 = ir::type::of(ir::scalar::u32);
    ir::converted_bytes c;
    if (ir::convert_to(v, u32, ir::check::any, c) != ir::convert_problem::fits)
      throw build_error(p.source.position(g.conds[i].range.begin),
                        fmt::format("the initial value of cond '{}': {}", g.conds[i].name, ir::convert(v, u32).error));
    out[i] = static_cast<unsigned>(c.as_u64());
  }
  return out;
}

namespace {

// Every field: a field added to build_options must join it (the size below then changes).
static_assert(sizeof(build_options) == sizeof(std::string) + 16, "build_options changed: compare the new field here");
bool same_options(const build_options& a, const build_options& b) {
  return a.module_directory == b.module_directory &&
         a.allow_module_paths_outside_directory == b.allow_module_paths_outside_directory && a.strategy == b.strategy &&
         a.capture_mode == b.capture_mode;
}

std::shared_ptr<const resolved_symbols> resolve_now(const program_state& p, const registry& r,
                                                    const build_options& options) {
  auto out = std::make_shared<resolved_symbols>();
  const std::size_t kernels = p.program.kernels.size();
  out->functions = std::make_unique<std::atomic<const void*>[]>(kernels);  // null: not resolved yet
  out->routines.reserve(kernels);
  out->registered.reserve(kernels);
  out->hosts.reserve(p.program.hosts.size());
  for (std::size_t i = 0; i < kernels; ++i) {
    const ir::kernel& k = p.program.kernels[i];
    out->routines.push_back(k.library == ir::none ? r.find_routine(k.name) : nullptr);
    out->any_routine = out->any_routine || out->routines.back();
    const auto* e = k.library == ir::none ? r.find_kernel(k.name) : nullptr;
    if (!e && k.library == ir::none && k.symbol != k.name) e = r.find_kernel(k.symbol);
    if (e && e->function && p.checked_registered[i].load(std::memory_order_acquire) == e->function) {
      // An earlier build checked this function against the declaration: resolved already, and
      // its parameter sizes (a copy each) are not needed.
      out->registered.push_back({e->function, {}});
      out->functions[i].store(e->function, std::memory_order_relaxed);
    } else {
      out->registered.push_back(e ? *e : registry::kernel_entry{});
    }
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
  return out;
}

}  // namespace

std::shared_ptr<const resolved_symbols> resolve(const program_state& p, const registry& r, const build_options& options) {
  const registry::version version = r.current_version();
  {
    std::lock_guard<std::mutex> guard(p.symbols_lock);
    const auto& last = p.last_symbols;
    if (last.symbols && last.version == version && same_options(last.options, options)) return last.symbols;
  }
  auto out = resolve_now(p, r, options);
  std::lock_guard<std::mutex> guard(p.symbols_lock);
  p.last_symbols = {out, version, options};
  return out;
}

}  // namespace cgraph::detail
