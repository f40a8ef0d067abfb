// The public run-time objects: program, graph, graph_exec.

#include "built_graph.hpp"
#include "exec_state.hpp"

#include <cgraph/compiler/compile.hpp>
#include <cgraph/compiler/plan.hpp>
#include <cgraph/compiler/printers.hpp>
#include <cgraph/runtime/graph.hpp>

#include <atomic>
#include <cstdio>
#include <filesystem>

#include <unistd.h>

#include <fmt/format.h>

namespace cgraph {

// ---- program ------------------------------------------------------------------------------

program program::compile(std::string text, std::string file, std::optional<import_options> imports) {
  source_file source(std::move(file), std::move(text));
  ir::program ir = imports ? compile_or_throw(source, {}, *imports) : compile_or_throw(source);
  auto state = std::make_shared<detail::program_state>(std::move(source), std::move(ir));
  state->directory = std::filesystem::current_path().string();
  for (const auto& g : state->program.graphs) state->plans.push_back(plan::lower_explicit(g));
  for (std::size_t i = 0; i < state->plans.size(); ++i)
    state->dependencies.push_back(detail::index_graph(state->program.graphs[i], state->plans[i]));
  return program(std::move(state));
}

namespace detail {
const capture_rows& program_state::capture(std::uint32_t index) const {
  return capture_rows_.get(index, plans.size(), [&] {
    return std::make_unique<capture_rows>(flatten_capture(plans[index], plan::lower_capture(plans[index])));
  });
}
}  // namespace detail

program program::load(const std::string& path, import_options imports) {
  std::optional<std::string> text = read_file(path);
  if (!text) throw build_error("", cannot_read(path));
  if (imports.directory.empty()) imports.directory = std::filesystem::path(path).parent_path().string();
  program p = compile(std::move(*text), path, std::move(imports));
  auto state = std::const_pointer_cast<detail::program_state>(p.state_);  // not shared yet
  state->directory = std::filesystem::absolute(path).parent_path().string();
  return p;
}

program_info program::declarations() const {
  auto params = [](const std::vector<ir::parameter>& ps) {
    std::vector<parameter_info> out;
    for (const auto& p : ps) out.push_back({p.name, ir::to_string(p.t), p.default_expr != ir::none});
    return out;
  };
  program_info out;
  for (const auto& k : state_->program.kernels) out.kernels.push_back({k.name, params(k.params)});
  for (const auto& h : state_->program.hosts) out.hosts.push_back({h.name, params(h.params)});
  for (const auto& g : state_->program.graphs) out.graphs.push_back({g.name, params(g.params)});
  return out;
}

const declaration_info* program_info::find_graph(std::string_view name) const {
  for (const auto& g : graphs)
    if (g.name == name) return &g;
  return nullptr;
}

const source_file& program::source() const { return state_->source; }
std::string program::ir_dot(std::string_view graph) const { return print_dot(state_->program, state_->source, graph); }

// ---- graph --------------------------------------------------------------------------------

graph::graph(std::shared_ptr<detail::built_graph> s) : state_(std::move(s)) {}
graph::graph(graph&&) noexcept = default;
graph& graph::operator=(graph&&) noexcept = default;
graph::~graph() = default;

namespace {
// graph::build with the values by name as either overload takes them.
template <typename Named>
std::shared_ptr<detail::built_graph> build_named(const std::shared_ptr<const detail::program_state>& prog,
                                                 std::string_view name, const Named& values, const registry& reg,
                                                 const build_options& options) {
  const auto& p = *prog;
  const ir::graph* g = p.program.find_graph(name);
  if (!g) throw build_error("", fmt::format("{} has no graph named '{}'", p.source.name(), name));
  auto index = static_cast<std::uint32_t>(g - p.program.graphs.data());
  auto symbols = detail::resolve(p, reg, options);
  auto params = detail::bind_params(p, index, values);
  return detail::build_graph(prog, std::move(symbols), index, std::move(params));
}
}  // namespace

graph graph::build(const program& prog, std::string_view name, const args& values, const registry& reg,
                   const build_options& options) {
  return graph(build_named(prog.state_, name, values, reg, options));
}

graph graph::build(const program& prog, std::string_view name, std::initializer_list<named_arg> values,
                   const registry& reg, const build_options& options) {
  return graph(build_named(prog.state_, name, std::span<const named_arg>(values.begin(), values.size()), reg, options));
}

cudaGraph_t graph::get() const { return state_->graph; }

std::size_t graph::node_count() const {
  std::size_t n = 0;
  backend::check(cudaGraphGetNodes(state_->graph, nullptr, &n), "cudaGraphGetNodes", state_->graph_site);
  return n;
}

std::string graph::debug_dot(unsigned flags) const {
  static std::atomic<unsigned> counter{0};
  auto path = std::filesystem::temp_directory_path() /
              fmt::format("cgraph-{}-{}.dot", static_cast<long>(getpid()), counter++);
  detail::check(cudaGraphDebugDotPrint(state_->graph, path.c_str(), flags), "cudaGraphDebugDotPrint");
  std::optional<std::string> text = read_file(path);
  // Why, before remove() can change errno: an empty string would read as an empty graph.
  const std::string why = text ? std::string() : cannot_read(path.string());
  std::error_code ignored;
  std::filesystem::remove(path, ignored);
  if (!text) throw build_error("", why + " (the DOT file cudaGraphDebugDotPrint wrote)");
  return std::move(*text);
}

std::string graph::ir_dot() const {
  return print_dot(state_->program->program, state_->program->source, state_->ir().name);
}

std::vector<cudaGraph_t> graph::conditional_bodies(cudaGraphNode_t node) const { return state_->conditional_bodies(node); }

graph_exec graph::instantiate(const instantiate_options& options) const {
  auto s = std::make_unique<detail::exec_state>(state_, options);
  s->params = state_->params;
  s->staged = state_->params;
  s->pool = state_->values;
  return graph_exec(std::move(s));
}

// ---- graph_exec ---------------------------------------------------------------------------

graph_exec::graph_exec(std::unique_ptr<detail::exec_state> s) : state_(std::move(s)) {}
graph_exec::graph_exec(graph_exec&&) noexcept = default;
graph_exec& graph_exec::operator=(graph_exec&&) noexcept = default;
graph_exec::~graph_exec() = default;

cudaGraphExec_t graph_exec::get() const { return state_->core.get(); }
void graph_exec::upload(cudaStream_t stream) { state_->core.upload(stream); }
void graph_exec::launch(cudaStream_t stream) { state_->core.launch(stream); }
update_result graph_exec::update(const args& values) { return detail::update(*state_, values); }
update_result graph_exec::update(std::initializer_list<named_arg> values) {
  return detail::update(*state_, std::span<const named_arg>(values.begin(), values.size()));
}
update_result graph_exec::apply() { return detail::apply(*state_); }

namespace {

// Whether a parameter of type `t` takes every value of a handle's C++ type unchanged, so that
// an assignment has nothing to check (checked_param would always pass): an integer type whose
// range holds the C++ type's, a pointer, a bool, an f64 (which takes any double, NaN included).
// An f32 checks its range, and a 2-byte float (f16 or bf16: its size does not say) rounds.
bool fits_every_value(ir::type t, detail::handle_type h) {
  if (h.kind == 'p') return t.is_pointer();
  if (h.kind == 'b') return t.is_bool();
  if (h.kind == 'f') return !h.is_two_byte_float && t.is_float() && t.s == ir::scalar::f64;
  if (h.kind != 'i' || !t.is_integer()) return false;
  const bool t_signed = t.s <= ir::scalar::i64;
  const std::size_t t_bytes = ir::size_of(t.s);
  return h.is_signed == t_signed ? h.bytes <= t_bytes : !h.is_signed && t_signed && h.bytes < t_bytes;
}

}  // namespace

detail::handle_target graph_exec::parameter_target(std::string_view name, detail::handle_type type) const {
  const char kind = type.kind;
  const std::size_t bytes = type.bytes;
  const detail::built_graph& g = state_->current();
  std::uint32_t index = detail::find_param(*g.program, g.graph_index, name);
  const ir::parameter& p = g.ir().params[index];
  char declared = detail::kind_of(p.t);
  static constexpr auto kinds = [](char k) {
    return k == 'p' ? "a pointer" : k == 'f' ? "a floating type" : k == 'b' ? "bool" : k == 's' ? "a struct" : "an integer type";
  };
  auto refuse = [&](const std::string& takes, const std::string& given) {
    return build_error(g.program->source.position(p.range.begin),
                       fmt::format("parameter '{}' of type '{}' takes {}, not {}", p.name,
                                   ir::to_string(p.t, g.program->program.structs), takes, given));
  };
  if (kind != declared) throw refuse(kinds(declared), kinds(kind));
  // A struct's size too, so that a handle of the wrong C++ type fails where it is made, not at
  // its first assignment.
  if (kind == 's' && bytes != p.t.bytes())
    throw refuse(fmt::format("a struct of {} bytes", p.t.bytes()), fmt::format("one of {}", bytes));
  return {index, fits_every_value(p.t, type)};
}

namespace detail {
void stage(exec_state& s, std::uint32_t index, const arg& value) {
  const built_graph& g = s.current();
  s.stage(index, checked_param(*g.program, g.graph_index, index, value));
}
void stage_fitting(exec_state& s, std::uint32_t index, const value& v) { s.stage(index, v); }
}  // namespace detail

std::string_view to_string(update_path p) {
  switch (p) {
    case update_path::unchanged: return "unchanged";
    case update_path::node_params: return "node_params";
    case update_path::whole_graph: return "whole_graph";
    case update_path::reinstantiated: return "reinstantiated";
  }
  return "?";
}

}  // namespace cgraph
