// `cgraphc emit-cpp`: prints the construction plans of every graph as C++ (see
// cgraph/compiler/emit_cpp.hpp and cgraph/runtime/generated.hpp). Per graph: the parameters and callbacks
// structs, the lets, one function per plan step computing that node's values (shared by the
// build and the update), the build (explicit add-node calls, or stream capture following the
// capture plan), and the per-node update.

#include "node_kinds.hpp"
#include "emit_values.hpp"
#include "node_text.hpp"
#include "ranges.hpp"

#include <cgraph/compiler/emit_cpp.hpp>
#include <cgraph/compiler/eval.hpp>
#include <cgraph/compiler/plan.hpp>
#include <cgraph/compiler/printers.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace cgraph {

namespace {

using emit::cpp_name;
using emit::cpp_type;
using emit::quoted;

// The C++ namespace of a file: its stem, made an identifier.
std::string file_namespace(std::string_view path) {
  auto slash = path.find_last_of("/\\");
  std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  name = name.substr(0, name.find('.'));
  std::string out;
  for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out.insert(out.begin(), '_');
  return cpp_name(out);
}

std::string signature_text(const ir::program& prog, const std::vector<ir::parameter>& params) {
  return detail::join(params, ", ", [&](const ir::parameter& p) { return fmt::format("{}: {}", p.name, ir::to_string(p.t, prog.structs)); });
}

std::string type_list(const ir::program& prog, const std::vector<ir::parameter>& params) {
  return detail::join(params, ", ", [&](const ir::parameter& p) { return cpp_type(p.t, prog.structs); });
}

// What a kernel's C++ parameter must be to take a value of .cgraph type t (generated.hpp's
// parameter_matches), for the static_assert's message.
std::string abi_rule(const ir::program& prog, ir::type t) {
  auto bytes = [](std::uint32_t n) { return fmt::format("{} {}-byte", n == 8 ? "an" : "a", n); };
  if (t.is_integer()) {
    const bool is_signed = t.s == ir::scalar::i8 || t.s == ir::scalar::i16 || t.s == ir::scalar::i32 || t.s == ir::scalar::i64;
    return fmt::format("{} {} integer", bytes(ir::size_of(t)), is_signed ? "signed" : "unsigned");
  }
  if (t.k == ir::type::kind::void_pointer) return t.is_const ? "a pointer to const" : "a pointer";
  if (t.has_element())
    return t.is_const ? fmt::format("a pointer to a const {}-byte type", ir::element_size(t, prog.structs))
                      : fmt::format("a pointer to {} type", bytes(ir::element_size(t, prog.structs)));
  if (t.is_struct()) return fmt::format("a trivially copyable struct of {} bytes aligned to {}", t.bytes(), t.align);
  return cpp_type(t, prog.structs);
}

// Whether any struct, kernel, host callback or graph declares a field or parameter of scalar s
// (or a pointer to one): the generated header then includes s's CUDA header.
bool uses_scalar(const ir::program& prog, ir::scalar s) {
  auto is = [&](ir::type t) { return (t.k == ir::type::kind::scalar || t.k == ir::type::kind::pointer) && t.s == s; };
  auto in = [&](const std::vector<ir::parameter>& params) {
    return std::any_of(params.begin(), params.end(), [&](const ir::parameter& p) { return is(p.t); });
  };
  auto in_struct = [&](const ir::structure& st) {
    return std::any_of(st.fields.begin(), st.fields.end(), [&](const ir::field& f) { return is(f.t); });
  };
  return std::any_of(prog.structs.begin(), prog.structs.end(), in_struct) ||
         std::any_of(prog.kernels.begin(), prog.kernels.end(), [&](const auto& k) { return in(k.params); }) ||
         std::any_of(prog.hosts.begin(), prog.hosts.end(), [&](const auto& h) { return in(h.params); }) ||
         std::any_of(prog.graphs.begin(), prog.graphs.end(), [&](const auto& g) { return in(g.params); });
}

// The kernel's C++ symbol, qualified from the global namespace.
std::string qualified_symbol(const ir::kernel& k) { return k.symbol.rfind("::", 0) == 0 ? k.symbol : "::" + k.symbol; }

std::string kernel_pointer(const ir::kernel& k) { return "reinterpret_cast<const void*>(&" + qualified_symbol(k) + ")"; }

std::string_view cond_kind_name(ir::cond_kind k) {
  switch (k) {
    case ir::cond_kind::if_then: return "if_then";
    case ir::cond_kind::if_else: return "if_else";
    case ir::cond_kind::while_loop: return "while_loop";
    case ir::cond_kind::switch_cases: return "switch_cases";
  }
  return "if_then";
}

class graph_emitter {
public:
  graph_emitter(const ir::program& prog, const source_file& src, std::uint32_t index, emit_mode mode,
                const std::vector<std::vector<std::uint32_t>>& hosts_used, std::string& out, std::size_t table_threshold)
      : prog_(prog), src_(src), g_(prog.graphs[index]), index_(index), mode_(mode), hosts_used_(hosts_used),
        plan_(plan::lower_explicit(g_)), values_(src, prog, g_), out_(out),
        table_(table_threshold != 0 && plan_.steps.size() >= table_threshold && table_form_fits()) {}

  void run() {
    std::string name = cpp_name(g_.name);
    if (table_)
      line("// ---- graph {}, {} ({} nodes: the table form, cgraph/runtime/generated.hpp) ----", g_.name,
           src_.position(g_.range.begin), plan_.steps.size());
    else
      line("// ---- graph {}, {} ----", g_.name, src_.position(g_.range.begin));
    line("namespace {} {{", name);
    line("");
    parameters();
    callbacks();
    lets();
    if (table_) table();
    else
      for (std::uint32_t i = 0; i < plan_.steps.size(); ++i) step_function(i);
    line("struct traits {{");
    line("  using parameters = {}::parameters;", name);
    line("  using callbacks = {}::callbacks;", name);
    line("  static cg::state_ptr build_state(const parameters& p, const callbacks& cb);");
    line("  static void update_nodes(cg::node_updater& u, const parameters& before, const parameters& p);");
    line("}};");
    line("");
    if (table_) {
      build_table();
      update_table();
    } else {
      build();
      update();
    }
    line("using graph = cg::graph<traits>;");
    line("using exec = cg::exec<traits>;");
    line("");
    line("// Builds the graph ({} strategy).", mode_ == emit_mode::explicit_nodes ? "explicit" : "stream-capture");
    line("inline graph build(const parameters& p, const callbacks& cb = {{}}) {{ return graph(p, cb); }}");
    line("// Applies new parameter values to an exec by the cheapest path CUDA accepts.");
    line("inline cgraph::update_result update(exec& e, const parameters& p) {{ return e.update(p); }}");
    line("");
    line("}}  // namespace {}", name);
    line("");
  }

private:
  template <typename... A>
  void line(fmt::format_string<A...> f, A&&... a) {
    std::string text = fmt::format(f, std::forward<A>(a)...);
    if (sink_) {
      sink_->push_back(std::move(text));
      return;
    }
    out_ += text;
    out_ += '\n';
  }

  // Lines printed while it lives go to `lines` instead of the output.
  class collect {
  public:
    collect(graph_emitter& e, std::vector<std::string>& lines) : e_(e), previous_(std::exchange(e.sink_, &lines)) {}
    ~collect() { e_.sink_ = previous_; }
    collect(const collect&) = delete;
    collect& operator=(const collect&) = delete;

  private:
    graph_emitter& e_;
    std::vector<std::string>* previous_;
  };

  // Long function bodies are split into parts, each a function of its own that is not inlined:
  // the host compiler's points-to analysis grows faster than linearly with one function's
  // size (a 1 000-node build took GCC 25 s in one function, 9 s in parts; 10 000 nodes took
  // more than ten minutes). Prints the parts, named NAME_part_K, each starting with
  // `preamble`; returns what the caller's body runs instead of `statements`: the statements
  // themselves when they fit in one part, else one call per part.
  std::vector<std::string> in_parts(std::string_view name, std::string_view params, std::string_view args,
                                    const std::vector<std::string>& preamble, std::vector<std::string> statements) {
    static constexpr std::size_t part_lines = 256;
    if (statements.size() <= part_lines) return statements;
    std::vector<std::string> calls;
    std::size_t parts = (statements.size() + part_lines - 1) / part_lines;
    for (std::size_t k = 0; k < parts; ++k) {
      line("// {}, part {} of {}", name, k + 1, parts);
      line("[[gnu::noinline]] inline void {}_part_{}({}) {{", name, k, params);
      for (const auto& l : preamble) line("{}", l);
      for (std::size_t i = k * part_lines; i < std::min(statements.size(), (k + 1) * part_lines); ++i) line("{}", statements[i]);
      line("}}");
      line("");
      calls.push_back(fmt::format("  {}_part_{}({});", name, k, args));
    }
    return calls;
  }

  std::string site(source_range r) const { return values_.site(r.begin); }

  // ---- declarations ---------------------------------------------------------------------------

  void parameters() {
    line("struct parameters {{");
    for (const auto& p : g_.params)
      line("  {} {} = {};", cpp_type(p.t, prog_.structs), cpp_name(p.name), values_.default_value(p));
    line("}};");
    line("");
  }

  void callbacks() {
    line("struct callbacks {{");
    for (auto h : hosts_used_[index_]) {
      const ir::host_callback& host = prog_.hosts[h];
      line("  std::function<void({})> {};  // host {}({}), {}", type_list(prog_, host.params), cpp_name(host.name), host.name,
           signature_text(prog_, host.params), src_.position(host.range.begin));
    }
    line("}};");
    line("");
  }

  // The lets whose values depend on parameters (the others were folded into constants), but for
  // those that read an allocation's address: `values` is evaluated before the graph is built,
  // so each of those is a function of its own, called where it is used, with the node's values
  // (value_printer; a function, not its expression at each use, which a chain of lets that each
  // read the one before twice made exponentially long).
  void lets() {
    std::vector<std::uint32_t> refs, late;
    std::set<std::uint32_t> seen;
    for (std::uint32_t i = 0; i < g_.exprs.size(); ++i)
      if (g_.exprs[i].op == ir::op::let_ref && seen.insert(g_.exprs[i].index).second)
        (g_.reads_allocation(i) ? late : refs).push_back(i);
    line("struct values {{");
    for (auto r : refs) line("  {} {}{{}};", values_.domain_type(r), cpp_name(g_.lets[g_.exprs[r].index].name));
    line("}};");
    line("");
    line("inline values evaluate([[maybe_unused]] const parameters& p) {{");
    line("  values v;");
    for (auto r : refs)
      line("  v.{} = {};", cpp_name(g_.lets[g_.exprs[r].index].name), values_.expr(g_.exprs[r].a));
    line("  return v;");
    line("}}");
    line("");
    for (auto r : late) {
      const ir::let_value& l = g_.lets[g_.exprs[r].index];
      line("// let {}, {}: reads an allocation's address, made with the graph", l.name, src_.position(l.range.begin));
      line("inline {} {}([[maybe_unused]] const parameters& p, [[maybe_unused]] const values& v,", values_.domain_type(r),
           values_.late_let(g_.exprs[r].index));
      line("    [[maybe_unused]] const cg::graph_state& g) {{");
      line("  return {};", values_.expr(g_.exprs[r].a));
      line("}}");
      line("");
    }
  }

  // ---- node values ----------------------------------------------------------------------------

  std::string args_of(const ir::node& n) const {
    const ir::argument_list args = g_.args(n);
    return detail::join(detail::views::enumerate(args), ", ", [&](const auto& indexed) {
      const auto& [i, a] = indexed;
      return values_.argument(a, describe_argument(prog_, n, i), n.range);
    });
  }

  // The grid (first 0) or the block (first 3) of a launch configuration.
  std::string dims(const ir::launch_config& launch, std::size_t first, std::string_view what, const ir::node& n) const {
    static constexpr std::string_view axes[] = {"x", "y", "z"};
    return "dim3(" + detail::join(detail::views::enumerate(axes), ", ", [&](const auto& axis) {
      const auto& [i, name] = axis;
      return values_.argument(launch.argument_at(first + i), fmt::format("{} dimension {}", what, name), n.range);
    }) + ")";
  }

  // The device of a placed node (`[[device]]`, `on device`) as an int, or -1.
  std::string device_of(const ir::node& n) const {
    if (n.attributes == ir::none || g_.attributes[n.attributes].device.expr == ir::none) return "-1";
    return fmt::format("static_cast<int>({})", values_.argument(g_.attributes[n.attributes].device, "the device", n.range));
  }
  // ", DEVICE" after the site of a placed kernel, memcpy or memset's backend call; "" otherwise
  // (a collective's device travels in its calls).
  std::string device_suffix(const ir::node& n) const {
    if (n.kind == ir::node_kind::collective) return {};
    std::string d = device_of(n);
    return d == "-1" ? std::string() : ", " + d;
  }

  // Whether kernel node `n` launches what a kernel this build added before it launched
  // (plan::launch_memory, the rule of every construction path): it is added without the launch
  // check (backend::kernel_node::add_checked, about 29 host instructions a node;
  // docs/performance.md, run 68). Called once a node, in step order, by whichever form the graph
  // is written in (the readable form's build lines, or the table form's records): both builds
  // make the nodes in that order.
  bool repeats_launch(const ir::node& n) { return written_launches_.known(n); }

  std::string step_comment(std::uint32_t i) const {
    const ir::node& n = *plan_.steps[i].node;
    return fmt::format("// step {}, {}: {}", i, src_.position(n.range.begin), detail::describe_node(prog_, g_, n));
  }

  void step_function(std::uint32_t i) {
    const ir::node& n = *plan_.steps[i].node;
    std::string result, body;
    switch (n.kind) {
      case ir::node_kind::kernel: {
        const ir::kernel& k = prog_.kernels[n.callee];
        result = fmt::format("cg::kernel_call<{}>", type_list(prog_, k.params));
        const ir::launch_config& launch = g_.launch_of(n);
        body = fmt::format("{{{}, {}, {}, {{{}}}}}", dims(launch, 0, "grid", n), dims(launch, 3, "block", n),
                           values_.argument(launch.argument_at(6), "dynamic shared memory bytes", n.range), args_of(n));
        break;
      }
      case ir::node_kind::repeat_init:
        result = "cg::repeat_call";
        body = fmt::format("{{g.repeat_counts[{0}], 0, g.conds[{0}], true}}", n.cond);
        break;
      case ir::node_kind::repeat_counter:
        result = "cg::repeat_call";
        body = fmt::format("{{g.repeat_counts[{0}], {1}, g.conds[{0}], false}}", n.cond,
                           values_.argument(g_.args(n)[0], describe_argument(prog_, n, 0), n.range));
        break;
      case ir::node_kind::memcpy:
        result = "cg::memcpy_call";
        body = fmt::format("{{{}}}", args_of(n));
        break;
      case ir::node_kind::memset:
        result = "cudaMemsetParams";
        body = fmt::format("cg::memset_call({}, cg::memset_bits({}), {}, {})",
                           values_.argument(g_.args(n)[0], describe_argument(prog_, n, 0), n.range),
                           values_.argument(g_.args(n)[1], describe_argument(prog_, n, 1), n.range), n.element_size,
                           values_.argument(g_.args(n)[2], describe_argument(prog_, n, 2), n.range));
        break;
      case ir::node_kind::host:
        result = fmt::format("std::tuple<{}>", type_list(prog_, prog_.hosts[n.callee].params));
        body = fmt::format("{{{}}}", args_of(n));
        break;
      case ir::node_kind::child_graph:
        result = cpp_name(prog_.graphs[n.callee].name) + "::parameters";
        body = fmt::format("{{{}}}", args_of(n));
        break;
      case ir::node_kind::event_record:
      case ir::node_kind::event_wait:
        result = "cudaEvent_t";
        body = values_.argument(g_.args(n)[0], describe_argument(prog_, n, 0), n.range);
        break;
      case ir::node_kind::mem_alloc:
        result = "std::uint64_t";
        body = values_.argument(g_.args(n)[0], describe_argument(prog_, n, 0), n.range);
        break;
      case ir::node_kind::collective: {
        std::string calls;
        for (std::size_t k = 0; (k + 1) * ir::collective_slots <= g_.args(n).size(); ++k) {
          const ir::collective_call& c = g_.collectives[n.callee + k];
          auto slot = [&](ir::collective_slot s) {
            std::size_t a = k * ir::collective_slots + s;
            return values_.argument(g_.args(n)[a], describe_argument(prog_, n, a), n.range);
          };
          calls += fmt::format("{}cg::collective_call{{cgraph::dsl::collective_op::{}, cgraph::dsl::reduction::{}, "
                               "cgraph::ir::scalar::{}, {}, {}, {}, {}, {}, {}, {}}}",
                               k ? ", " : "", dsl::info(c.op).name, dsl::reductions[static_cast<std::size_t>(c.reduction)],
                               ir::to_string(c.element), slot(ir::slot_send), slot(ir::slot_recv), slot(ir::slot_count),
                               slot(ir::slot_peer), slot(ir::slot_comm), device_of(n), site(c.range));
        }
        result = fmt::format("cg::collective_list<{}>", g_.args(n).size() / ir::collective_slots);
        body = fmt::format("{{{{{}}}}}", calls);
        break;
      }
      case ir::node_kind::mem_free: return;  // nothing but its allocation
      case ir::node_kind::conditional: return;  // nothing but its cond handle
    }
    line("{}", step_comment(i));
    line("inline {} step_{}([[maybe_unused]] const parameters& p, [[maybe_unused]] const values& v,", result, i);
    line("    [[maybe_unused]] const cg::graph_state& g) {{");
    line("  return {};", body);
    line("}}");
    line("");
  }

  // ---- the build --------------------------------------------------------------------------------

  enum class strategy : std::uint8_t { explicit_graph, capture, update };

  // What the backend call for step i takes after its place (graph and dependencies, or stream):
  // the one per-kind part of every node call generated code makes. Conditionals take their
  // parameters and bodies, written where their bodies are.
  std::string operands(std::uint32_t i, strategy how) const {
    const ir::node& n = *plan_.steps[i].node;
    std::string values = fmt::format("step_{}(p, v, g)", i);
    switch (n.kind) {
      case ir::node_kind::kernel: return fmt::format("{}, {}", kernel_pointer(prog_.kernels[n.callee]), values);
      case ir::node_kind::host: return host_params(i, how == strategy::capture ? "c.root()" : "g.graph");
      case ir::node_kind::mem_alloc: return fmt::format("{}, {}", n.callee, values);
      case ir::node_kind::mem_free: return std::to_string(n.callee);
      case ir::node_kind::child_graph:
        if (how == strategy::capture) return fmt::format("g.children[{}]", i);  // built beforehand (build_capture)
        return build_child(i);
      case ir::node_kind::collective:
        if (how == strategy::capture) return fmt::format("g.children[{}]", i);  // captured beforehand (build_capture)
        return capture_collectives(i);
      default: return values;
    }
  }

  // The child graph of `call` step i, built from its values.
  std::string build_child(std::uint32_t i) const {
    const ir::node& n = *plan_.steps[i].node;
    return fmt::format("{}::traits::build_state(step_{}(p, v, g), {})", cpp_name(prog_.graphs[n.callee].name), i,
                       child_callbacks(n));
  }

  // The graph of collective step i, captured from its values (backend/collective.hpp).
  std::string capture_collectives(std::uint32_t i) const {
    return fmt::format("cg::capture_collectives(step_{}(p, v, g), {})", i, site(plan_.steps[i].node->range));
  }

  std::string parent_of(std::uint32_t i) const {
    plan::location l = plan_.steps[i].parent;
    return l.step == ir::none ? "g.graph" : fmt::format("g.bodies[{}]", plan_.body_index(l));
  }

  std::string deps_of(std::uint32_t i) const {
    return "{" + detail::join(plan_.steps[i].deps, ", ", [](std::uint32_t d) { return fmt::format("g.nodes[{}]", d); }) + "}";
  }

  std::string child_callbacks(const ir::node& n) const {
    return cpp_name(prog_.graphs[n.callee].name) + "::callbacks{" +
           detail::join(hosts_used_[n.callee], ", ", [&](std::uint32_t h) { return "cb." + cpp_name(prog_.hosts[h].name); }) +
           "}";
  }

  std::string host_params(std::uint32_t i, std::string_view owner) const {
    const ir::node& n = *plan_.steps[i].node;
    const auto& host = prog_.hosts[n.callee];
    return fmt::format("cg::host_call(cb.{}, step_{}(p, v, g), {}, {}, {})", cpp_name(host.name), i, owner, quoted(host.name),
                       site(n.range));
  }

  std::string conditional_params(const ir::node& n) const {
    return fmt::format("cg::conditional_params(g.conds[{}], cgraph::ir::cond_kind::{}, {})", n.cond,
                       cond_kind_name(n.cond_kind), n.bodies_count);
  }

  // The conds whose conditional node lives in `where`, created as soon as that graph exists.
  // Their list is a `static constexpr` array where every initial value is a constant (the
  // common case): a braced list is copied onto the stack at each build (32 bytes a cond, so
  // 3.2 MB of stack for 100 000 conds), a constant array is not. A value computed from a
  // parameter makes it a local array. One line, so splitting the build into parts never
  // separates the array from its call.
  void create_conds(plan::location where, std::string_view graph, std::string_view indent) {
    const auto [list, constant] = cond_inits(where);
    if (list.empty()) return;
    line("{}{{ {} cg::cond_init conds[] = {{{}}}; cg::create_conds(g, {}, conds); }}", indent,
         constant ? "static constexpr" : "const", list, graph);
  }

  // The cg::cond_init records of the conds that live in the graph at `where` (empty if none),
  // and whether every one of them starts from a constant.
  std::pair<std::string, bool> cond_inits(plan::location where) const {
    std::string list;  // none: nothing computed
    bool constant = true;
    for (std::uint32_t c : plan_.conds_by_graph.of(plan_.graph_number(where))) {
      const ir::cond_handle& h = g_.conds[c];
      std::string value = "0u";
      if (h.default_expr != ir::none) {
        value = values_.argument(ir::argument{h.default_expr, ir::type::of(ir::scalar::u32), ir::check::any, 0, h.range},
                                 fmt::format("the initial value of cond '{}'", h.name), h.range);
        constant = constant && g_.exprs[h.default_expr].is_constant();
      }
      list += fmt::format("{}{{{}, {}, {}, {}}}", list.empty() ? "" : ", ", c, value, h.default_expr != ir::none,
                          site(h.range));
    }
    return {std::move(list), constant};
  }

  // Each repeat's iteration counter, allocated before the graph or its capture (CUDA refuses an
  // allocation while a capture is open).
  void repeat_counts() {
    for (const auto& s : plan_.steps)
      if (s.node->kind == ir::node_kind::repeat_init) line("  cg::repeat_count(g, {}, {});", s.node->cond, site(s.node->range));
  }

  void build() {
    // `prologue` runs in build_state itself; `steps`, the node calls, may be split into parts.
    std::vector<std::string> prologue, steps;
    {
      collect into(*this, prologue);
      repeat_counts();
    }
    bool capture = mode_ == emit_mode::stream_capture;
    if (capture) build_capture(prologue, steps);
    else build_explicit(steps);
    auto body = in_parts("build",
                         fmt::format("cg::graph_state& g, {}[[maybe_unused]] const parameters& p, "
                                     "[[maybe_unused]] const values& v, [[maybe_unused]] const callbacks& cb",
                                     capture ? "cg::capture_session& c, " : ""),
                         capture ? "g, c, p, v, cb" : "g, p, v, cb", {}, std::move(steps));
    line("inline cg::state_ptr traits::build_state(const parameters& p, [[maybe_unused]] const callbacks& cb) {{");
    line("  auto state = std::make_shared<cg::graph_state>({}, {}, {}, {});", plan_.steps.size(), plan_.body_graphs,
         g_.conds.size(), g_.allocations.size());
    line("  cg::graph_state& g = *state;");
    // Each step's statement, for error reports: a constant table, so a build writes no site.
    if (!plan_.steps.empty()) {
      line("  static constexpr cg::site sites[] = {{");
      for (auto row : plan_.steps | detail::views::chunk(4))
        line("      {},", detail::join(row, ", ", [&](const plan::step& s) { return site(s.node->range); }));
      line("  }};");
      line("  g.sites = sites;");
    }
    port_edges();
    line("  const values v = evaluate(p);");
    for (const auto& l : prologue) line("{}", l);
    for (const auto& l : body) line("{}", l);
    line("  return state;");
    line("}}");
    line("");
  }

  // Programmatic edges (both forms): the backend makes each as it adds or captures the kernel
  // it enters, reading them from the state.
  void port_edges() {
    if (plan_.port_steps.empty()) return;
    line("  static constexpr cg::port_step ports[] = {{{}}};",
         detail::join(plan_.port_steps, ", ", [](const plan::port_step& e) {
           return fmt::format("{{{}, {}, {}}}", e.from, e.to, e.launch_completion);
         }));
    line("  g.port_edges = ports;");
  }

  void build_explicit(std::vector<std::string>& steps) {
    collect into(*this, steps);
    line("  cg::create_graph(g, {});", site(g_.range));
    create_conds(plan::location{}, "g.graph", "  ");
    for (std::uint32_t i = 0; i < plan_.steps.size(); ++i) {
      const ir::node& n = *plan_.steps[i].node;
      std::string head = fmt::format("g, {}, {}, {}", i, parent_of(i), deps_of(i));
      std::string at = site(n.range);
      line("  {}", step_comment(i));
      const detail::node_kind_info& row = detail::info(n.kind);
      if (n.kind == ir::node_kind::conditional) {
        std::uint32_t first = plan_.first_body[i];
        line("  cg::{}({}, {}, {}, {});", row.add, head, conditional_params(n), first, at);
        for (std::uint32_t k = 0; k < n.bodies_count; ++k)
          create_conds(plan::location{i, k}, fmt::format("g.bodies[{}]", first + k), "  ");
      } else {
        line("  cg::{}({}, {}, {}{});", repeats_launch(n) ? row.add_again : row.add, head,
             operands(i, strategy::explicit_graph), at, device_suffix(n));
      }
    }
    refresh_late_readers();
    apply_attributes();
  }

  // `[[enabled(EXPR)]]` of node n as C++ (a bool), or "" without it.
  std::string enabled_value(const ir::node& n) const {
    if (n.attributes == ir::none || g_.attributes[n.attributes].enabled.expr == ir::none) return {};
    return values_.argument(g_.attributes[n.attributes].enabled, "attribute 'enabled'", n.range);
  }

  // Once the graph is made (both modes): kernel priorities and clusters, and each
  // `[[enabled(…)]]` value for the exec.
  void apply_attributes() {
    for (std::uint32_t i : plan_.attributed) {
      const ir::node& n = *plan_.steps[i].node;
      const ir::node_attributes& at = g_.attributes[n.attributes];
      if (std::string on = enabled_value(n); !on.empty()) line("  cg::set_enabled(g, {}, {});", i, on);
      if (at.priority.expr == ir::none && at.cluster[0].expr == ir::none) continue;
      auto constant = [&](const ir::argument& a) { return a.expr == ir::none ? 0 : g_.exprs[a.expr].constant().i; };
      line("  cg::set_kernel_attributes(g, {}, {}, {}, dim3({}, {}, {}), {});", i, at.priority.expr != ir::none,
           constant(at.priority), constant(at.cluster[0]), constant(at.cluster[1]), constant(at.cluster[2]),
           site(n.range));
    }
  }

  // Kernels given an `else if` cond before its handle existed get their parameters again.
  void refresh_late_readers() {
    for (std::uint32_t i : plan_.late_readers) {
      line("  // step {}: set again, now that the handles of the conds it sets exist", i);
      line("  cg::refresh_kernel(g, {}, {}, {});", i, operands(i, strategy::explicit_graph), site(plan_.steps[i].node->range));
    }
  }

  void build_capture(std::vector<std::string>& prologue, std::vector<std::string>& steps) {
    {
      collect into(*this, prologue);
      // A capturing thread may not allocate or build other graphs: child graphs first, except
      // those given a cond or an allocation of this graph, built once the capture has made it.
      for (std::uint32_t i = 0; i < plan_.steps.size(); ++i) {
        const ir::node& n = *plan_.steps[i].node;
        if (n.kind == ir::node_kind::child_graph && !plan::built_during_capture(g_, n))
          line("  g.set_child({}, {});", i, build_child(i));
        // NCCL's warm-up runs work and waits: never inside the capture.
        if (n.kind == ir::node_kind::collective) line("  g.set_child({}, {});", i, capture_collectives(i));
      }
      line("  cg::capture_session c(g, {});", site(g_.range));
    }
    collect into(*this, steps);
    capture_ = plan::lower_capture(plan_);
    line("  c.begin({});", capture_.bodies[0].streams);
    create_conds(plan::location{}, "c.graph()", "  ");
    capture_body(0, "  ");
    line("  c.end({});", joins(capture_.bodies[0]));
    refresh_late_readers();
    apply_attributes();
  }

  static std::string joins(const plan::capture_body& b) {
    return "{" + detail::join(b.joins, ", ", [](std::uint32_t j) { return std::to_string(j); }) + "}";
  }

  void capture_body(std::uint32_t index, const std::string& indent) {
    for (const auto& cn : capture_.bodies[index].nodes) {
      const ir::node& n = *plan_.steps[cn.step].node;
      std::string at = site(n.range);
      std::uint32_t i = cn.step, k = cn.stream;
      line("{}{}", indent, step_comment(i));
      for (auto w : cn.waits) line("{}c.wait({}, {});", indent, k, w);
      const detail::node_kind_info& row = detail::info(n.kind);
      if (n.kind == ir::node_kind::conditional) {
        std::uint32_t first = plan_.first_body[i];
        line("{}c.{}({}, {}, {}, {}, {});", indent, row.capture, k, i, conditional_params(n), first, at);
        for (std::uint32_t b = 0; b < n.bodies_count; ++b) {
          const plan::capture_body& body = capture_.bodies[cn.bodies[b]];
          line("{}c.enter_body({}, {});  // {}", indent, first + b, body.streams, detail::body_name(n, b));
          create_conds(plan::location{i, b}, "c.graph()", indent + "  ");
          capture_body(cn.bodies[b], indent + "  ");
          line("{}c.leave_body({});", indent, joins(body));
        }
      } else {
        if (plan::built_during_capture(g_, n)) line("{}{{ cg::relaxed_capture_mode aside; g.set_child({}, {}); }}", indent, i, build_child(i));
        line("{}c.{}({}, {}, {}, {}{});", indent, repeats_launch(n) ? row.capture_again : row.capture, k, i,
             operands(i, strategy::capture), at, device_suffix(n));
      }
      if (cn.record_event) line("{}c.record({}, {});", indent, k, i);
    }
  }

  // ---- the table form (large graphs; cgraph/runtime/generated.hpp) ------------------------------

  // Whether every node fits the table's one loop: kernel, memcpy and memset nodes (with their
  // `[[priority]]`, `[[cluster]]` and `[[enabled]]`, set after the loop as the readable form
  // sets them, and their programmatic edges, which the backend reads from the state; a node
  // placed on a device stays readable), with arguments of scalar and pointer types or a cond
  // (`while c { k(c); }`: a slot the walker fills with the handle), all in the file itself (a
  // node's site names `file`), at the root or in the bodies of conditionals at the root, and a
  // `repeat` at the root (its init and counter nodes are rows of their own; the loop's only
  // argument, its count, is the counter's). Every cond lives in the root: the conds are made
  // once, before the rows. A cond's initial value may read parameters (made with the graph's
  // values; an update that changes it refuses, as the readable form's does: cond_refusals).
  bool table_form_fits() const {
    for (const auto& s : plan_.steps) {
      const ir::node& n = *s.node;
      if (n.kind == ir::node_kind::conditional) {
        if (s.parent.step != ir::none || (!g_.args(n).empty() && !n.from_repeat) || n.bodies_count > 0xffff) return false;
      } else if (detail::info(n.kind).table_row.empty()) {
        return false;
      }
      if (n.attributes != ir::none && g_.attributes[n.attributes].device.expr != ir::none) return false;
      if (src_.segment_of(n.range.begin) != 0) return false;
      bool plain = true;
      ir::for_each_argument(g_, n, [&](const ir::argument& a) {
        const bool names_cond = a.expr < g_.exprs.size() && g_.exprs[a.expr].op == ir::op::cond_ref;
        // An allocation named as it is: a slot the walker fills once its row is made. Read by
        // an expression (`tmp + n`, `? :`), it would be computed before the rows: not here.
        const bool computes_address = g_.reads_allocation(a.expr) && g_.exprs[a.expr].op != ir::op::alloc_ref;
        plain = plain && !a.target.is_struct() && (a.target.k != ir::type::kind::cond || names_cond) &&
                !a.target.is_handle() && !computes_address;
      });
      if (!plain) return false;
    }
    if (plan_.conds_by_graph.of(0).size() != g_.conds.size()) return false;  // a cond lives in a body
    return prog_.kernels.size() < 65536;
  }

  // A type as a C++ constant expression.
  static std::string type_constant(ir::type t) {
    static constexpr std::string_view kinds[] = {"scalar", "pointer", "void_pointer", "cond", "null",
                                                  "structure", "event", "comm", "struct_pointer"};
    static_assert(std::size(kinds) == static_cast<std::size_t>(ir::type::kind::struct_pointer) + 1,
                  "a name for every ir::type::kind");
    return fmt::format("cgraph::ir::type{{cgraph::ir::type::kind::{}, cgraph::ir::scalar::{}, {}, {}, {}}}",
                       kinds[static_cast<std::size_t>(t.k)], ir::to_string(t.s) == "bool" ? "boolean" : ir::to_string(t.s),
                       t.is_const, t.align, t.shape);
  }

  // The slots, argument targets and node records, and the function that computes the slots
  // of the parameters' expressions (each distinct expression once). A constant is converted to
  // its argument's type here, with the run-time path's conversion (ir::convert_to), and its
  // list entry names its converted bits (emit_cpp.hpp, table_converted_entry): a build reads them
  // as they are, where it converted the constant for every node before.
  // A constant that does not convert (none gets past the checks; kept for safety) stays a slot,
  // converted, and reported, where the node is built.
  void table() {
    std::vector<std::pair<ir::value::kind, std::uint64_t>> constants;
    std::map<std::pair<ir::value::kind, std::uint64_t>, std::uint32_t> constant_index;
    std::vector<std::uint64_t> converted;  // constants as their arguments take them
    std::map<std::uint64_t, std::uint32_t> converted_index;
    std::vector<std::string> computed;  // C++ expressions making a cgraph::value (none: a cond's handle)
    std::map<std::string, std::uint32_t> computed_index;
    std::vector<std::string> cond_slots;  // {computed slot, cond}: generated.hpp, table_cond_slot
    // By allocation, the computed slot that holds its address (none: no argument names it),
    // filled by the walker once the alloc row is made (generated.hpp, node_table::allocation_slots).
    std::vector<std::uint32_t> allocation_slots(g_.allocations.size(), ir::none);
    // Until every constant is known: a converted constant, and a slot after the constants.
    constexpr std::uint32_t converted_bit = 1u << 31, computed_bit = 1u << 30;
    auto slot = [&](const ir::argument& a, ir::type target, ir::check check) -> std::uint32_t {
      const ir::expr& e = g_.exprs[a.expr];
      if (e.op == ir::op::cond_ref) {  // the walker fills it once the handle exists (table_form_fits)
        auto [it, added] = computed_index.try_emplace(fmt::format("cond {}", e.index), static_cast<std::uint32_t>(computed.size()));
        if (added) {
          computed.emplace_back();
          cond_slots.push_back(fmt::format("{{{}, {}}}", it->second, e.index));
        }
        return computed_bit | it->second;
      }
      if (e.op == ir::op::alloc_ref) {  // likewise once its alloc row is made (an alloc name is passed as it is)
        std::uint32_t& s = allocation_slots[e.index];
        if (s == ir::none) {
          s = static_cast<std::uint32_t>(computed.size());
          computed.emplace_back();
        }
        return computed_bit | s;
      }
      const ir::value c = e.is_constant() ? e.constant() : ir::value{};
      if (e.is_constant() && !c.big_unsigned()) {
        if (ir::converted_bytes bytes; ir::convert_to(c, target, check, bytes) == ir::convert_problem::fits) {
          auto [it, added] = converted_index.try_emplace(bytes.as_u64(), static_cast<std::uint32_t>(converted.size()));
          if (added) converted.push_back(bytes.as_u64());
          return converted_bit | it->second;
        }
        auto key = std::pair{c.k, e.constant_bits()};
        auto [it, added] = constant_index.try_emplace(key, static_cast<std::uint32_t>(constants.size()));
        if (added) constants.push_back(key);
        return it->second;
      }
      const ir::type t = e.result;
      std::string text = e.is_constant() ? fmt::format("cgraph::value::unsigned_integer({}u)", static_cast<std::uint64_t>(c.i))
                                         : fmt::format("cgraph::value::{}({})", t.is_pointer() ? "pointer" : t.is_float() ? "floating" : t.is_bool() ? "boolean" : "integer",
                                     values_.expr(a.expr));
      auto [it, added] = computed_index.try_emplace(text, static_cast<std::uint32_t>(computed.size()));
      if (added) computed.push_back(std::move(text));
      return computed_bit | it->second;
    };
    // Argument targets by shape, slot lists, dependencies and records, deduplicated.
    std::vector<std::string> arguments, shapes, records;  // arguments: one row per shape
    std::size_t argument_entries = 0;
    std::map<std::string, std::uint32_t> shape_index;
    std::vector<std::uint32_t> lists, deps;
    std::map<std::vector<std::uint32_t>, std::uint32_t> list_index;
    std::vector<std::uint32_t> functions;  // kernel indices
    auto list_of = [&](std::vector<std::uint32_t> l) {
      auto [it, added] = list_index.try_emplace(l, static_cast<std::uint32_t>(lists.size()));
      if (added) lists.insert(lists.end(), l.begin(), l.end());
      return it->second;
    };
    for (std::uint32_t i = 0; i < plan_.steps.size(); ++i) {
      const ir::node& n = *plan_.steps[i].node;
      const bool known_launch = repeats_launch(n);  // both table walks make the rows in step order (plan.hpp)
      std::string shape;
      std::vector<std::uint32_t> args;
      const ir::argument_list node_args = g_.args(n);
      for (const auto& [k, a] : detail::views::enumerate(node_args)) {
        shape += fmt::format("{{{}, cgraph::ir::check::{}, {}}}, ", type_constant(a.target),
                             a.check == ir::check::positive ? "positive" : "any", quoted(describe_argument(prog_, n, k)));
        args.push_back(slot(a, a.target, a.check));
      }
      auto [it, added] = shape_index.try_emplace(shape, static_cast<std::uint32_t>(shapes.size()));
      if (added) {
        shapes.push_back(fmt::format("{{{}, {}}}", argument_entries, g_.args(n).size()));
        arguments.push_back(shape);
        argument_entries += g_.args(n).size();
      }
      std::uint32_t config = 0, function = 0;
      if (n.kind == ir::node_kind::kernel) {
        std::vector<std::uint32_t> c;
        for (std::size_t k = 0; k < ir::launch_config::slots; ++k) {
          const ir::argument a = g_.launch_argument(n, k);
          c.push_back(slot(a, a.target, a.check));
        }
        config = list_of(std::move(c));
        auto f = std::find(functions.begin(), functions.end(), n.callee);
        function = static_cast<std::uint32_t>(f - functions.begin());
        if (f == functions.end()) functions.push_back(n.callee);
      }
      const auto lc = src_.location(n.range.begin);
      const plan::location parent = plan_.steps[i].parent;
      const std::size_t graph = plan_.graph_number(parent);
      std::uint32_t list = list_of(std::move(args));
      if (n.kind == ir::node_kind::conditional) {  // generated.hpp, table_node: its values in the kernel's fields
        records.push_back(fmt::format("{{Q,{},{},{},{},{},{},{},{},{},{}}}", static_cast<int>(n.cond_kind), n.bodies_count,
                                      it->second, lc.line, lc.column, n.cond, plan_.first_body[i], deps.size(),
                                      plan_.steps[i].deps.size(), graph));
      } else {
        const bool repeat = n.kind == ir::node_kind::repeat_init || n.kind == ir::node_kind::repeat_counter;
        if (repeat) config = n.cond;  // generated.hpp, table_node: a repeat's init or counter names its cond
        if (n.kind == ir::node_kind::mem_alloc || n.kind == ir::node_kind::mem_free) config = n.callee;  // its allocation
        // generated.hpp, table_node: a kernel's second field says whether its launch is known
        const int second = n.kind == ir::node_kind::kernel ? int{known_launch} : int{n.element_size};
        records.push_back(fmt::format("{{{},{},{},{},{},{},{},{},{},{},{}}}", detail::info(n.kind).table_row, second,
                                      function, it->second, lc.line, lc.column, config, list, deps.size(),
                                      plan_.steps[i].deps.size(), graph));
      }
      deps.insert(deps.end(), plan_.steps[i].deps.begin(), plan_.steps[i].deps.end());
    }
    // The argument table: each shape's arguments in a row of their own.
    const auto constant_count = static_cast<std::uint32_t>(constants.size());
    for (auto& l : lists)
      l = l & converted_bit  ? table_converted_entry(l & ~converted_bit)
          : l & computed_bit ? table_slot_entry(constant_count + (l & ~computed_bit))
                             : table_slot_entry(l);
    computed_slots_ = static_cast<std::uint32_t>(computed.size());
    auto numbers = [](const std::vector<std::uint32_t>& v) {
      return v.empty() ? std::string("0") : detail::join(v, ",", [](std::uint32_t x) { return std::to_string(x); });
    };
    line("// The table: {} nodes, {} converted constants, {} constant and {} computed slots.", records.size(), converted.size(),
         constants.size(), computed.size());
    line("namespace table_form {{");
    line("constexpr auto K = cgraph::ir::node_kind::kernel, C = cgraph::ir::node_kind::memcpy, S = cgraph::ir::node_kind::memset,");
    line("               Q = cgraph::ir::node_kind::conditional, I = cgraph::ir::node_kind::repeat_init,");
    line("               R = cgraph::ir::node_kind::repeat_counter;");
    if (!g_.allocations.empty())
      line("constexpr auto A = cgraph::ir::node_kind::mem_alloc, F = cgraph::ir::node_kind::mem_free;");
    std::string kinds;
    for (const auto& c : constants)
      kinds += c.first == ir::value::kind::integer    ? 'i'
               : c.first == ir::value::kind::floating ? 'f'
               : c.first == ir::value::kind::boolean  ? 'b'
                                                      : 'p';
    line("inline constexpr char constant_kinds[] = \"{}\";", kinds);
    line("inline constexpr std::uint64_t constant_bits[] = {{{}}};",
         constants.empty() ? std::string("0")
                           : detail::join(constants, ",", [](const auto& c) { return std::to_string(c.second) + "u"; }));
    line("inline constexpr std::uint64_t converted[] = {{{}}};",
         converted.empty() ? std::string("0") : detail::join(converted, ",", [](std::uint64_t c) { return std::to_string(c) + "u"; }));
    line("inline constexpr std::uint32_t slot_lists[] = {{{}}};", numbers(lists));
    line("inline constexpr std::uint32_t deps[] = {{{}}};", numbers(deps));
    line("inline constexpr cg::table_argument arguments[] = {{");
    for (const auto& a : arguments)
      if (!a.empty()) line("  {}", a);
    if (argument_entries == 0) line("  {{}}");  // C++ has no empty arrays
    line("}};");
    line("inline constexpr cg::table_shape shapes[] = {{{}}};", detail::join(shapes, ", ", [](const std::string& s) { return s; }));
    line("inline const void* const functions[] = {{{}}};",
         functions.empty() ? std::string("nullptr")
                           : detail::join(functions, ", ", [&](std::uint32_t k) { return kernel_pointer(prog_.kernels[k]); }));
    line("// {{kind, memset element size (a kernel: its launch is known), function, shape, line, column, launch slots, "
         "argument slots, first dependency, dependencies, graph}}");
    if (plan_.body_graphs != 0)
      line("// (a conditional: {{Q, cond kind, bodies, shape, line, column, cond, first body, first dependency, dependencies, graph}})");
    if (std::any_of(plan_.steps.begin(), plan_.steps.end(),
                    [](const auto& s) { return s.node->kind == ir::node_kind::repeat_init; }))
      line("// (a repeat's init or counter: {{I or R, 0, 0, shape, line, column, cond, argument slots (the counter's count), …}})");
    if (!g_.allocations.empty())
      line("// (an alloc or a free: {{A or F, 0, 0, shape, line, column, allocation, argument slots (the alloc's byte count), …}})");
    array_of_records("cg::table_node nodes", records);
    if (!cond_slots.empty()) {
      line("// The computed slots that hold a cond's handle: {{slot, cond}}, filled by the table's walker.");
      array_of_records("cg::table_cond_slot cond_slots", cond_slots);
    }
    if (!g_.allocations.empty()) {
      line("// By allocation, the computed slot that holds its address ({} where no argument names it), filled by the",
           ir::none);
      line("// table's walker once its alloc row is made.");
      line("inline constexpr std::uint32_t allocation_slots[] = {{{}}};", numbers(allocation_slots));
    }
    if (mode_ == emit_mode::stream_capture) capture_rows(numbers);
    line("}}  // namespace table_form");
    line("");
    line("inline cg::node_table table() {{");
    line("  using namespace table_form;");
    line("  return {{file, {{nodes, {}}}, {{slot_lists, {}}}, {{deps, {}}}, {{shapes, {}}}, {{arguments, {}}}, {{functions, {}}}, "
         "constant_kinds, {{constant_bits, {}}}, {{converted, {}}}{}{}}};",
         records.size(), lists.size(), deps.size(), shapes.size(), argument_entries, functions.size(), constants.size(),
         converted.size(), cond_slots.empty() ? std::string(", {}") : fmt::format(", {{cond_slots, {}}}", cond_slots.size()),
         allocation_slots.empty() ? std::string(", {}") : fmt::format(", {{allocation_slots, {}}}", allocation_slots.size()));
    line("}}");
    line("");
    std::vector<std::string> statements;
    for (std::size_t k = 0; k < computed.size(); ++k)
      if (!computed[k].empty()) statements.push_back(fmt::format("  s[{}] = {};", k, computed[k]));
    auto body = in_parts("compute_slots",
                         "[[maybe_unused]] const parameters& p, [[maybe_unused]] const values& v, std::vector<cgraph::value>& s",
                         "p, v, s", {}, std::move(statements));
    line("// The slots of the parameters' expressions: s[k] is slot {} + k (the {} slots before are constants).",
         constant_count, constant_count);
    line("inline void compute_slots([[maybe_unused]] const parameters& p, [[maybe_unused]] const values& v,");
    line("    [[maybe_unused]] std::vector<cgraph::value>& s) {{");
    for (const auto& l : body) line("{}", l);
    line("}}");
    line("");
  }

  // A constant array of the table's records (`declaration` is its type and name), eight a line.
  void array_of_records(std::string_view declaration, const std::vector<std::string>& records) {
    line("inline constexpr {}[] = {{", declaration);
    for (auto row : records | detail::views::chunk(8))
      line("{}", detail::join(row, "", [](const std::string& r) { return r + ","; }));
    line("}};");
  }

  // The capture's order of the rows (plan::lower_capture), the bodies' between their enter and
  // leave rows (generated.hpp, capture_op), its waits, the end's joins and the root's conds,
  // and the function that names them.
  template <typename Numbers>
  void capture_rows(const Numbers& numbers) {
    capture_ = plan::lower_capture(plan_);
    std::vector<std::uint32_t> waits;
    std::vector<std::string> rows;
    // A conditional's bodies are at the root (table_form_fits).
    plan::walk_capture(plan_, capture_, [&](plan::capture_row_kind kind, std::uint32_t number, std::uint32_t stream,
                                            std::span<const std::uint32_t> w, bool record) {
      static constexpr std::string_view ops[] = {"N", "B", "E"};  // by kind, as the table's names below
      rows.push_back(fmt::format("{{{},{},{},{},{},{}}}", ops[static_cast<std::size_t>(kind)], number, stream, waits.size(),
                                 w.size(), record));
      waits.insert(waits.end(), w.begin(), w.end());
    });
    const plan::capture_body& root = capture_.bodies[0];
    // The root's conds, a constant array where every initial value is a constant; else
    // build_state makes them (build_table).
    const auto [conds, constant] = cond_inits(plan::location{});
    line("// The capture's order: {{N (a node), step, stream, first wait, waits, records its event}}, and each body's");
    line("// {{B, body, streams, …}} before its nodes and {{E, 0, 0, first join, joins, …}} after them");
    line("constexpr auto N = cg::capture_op::node, B = cg::capture_op::enter_body, E = cg::capture_op::leave_body;");
    array_of_records("cg::table_capture_node capture_nodes", rows);
    line("inline constexpr std::uint32_t capture_waits[] = {{{}}};", numbers(waits));
    line("inline constexpr std::uint32_t capture_joins[] = {{{}}};", numbers(root.joins));
    if (constant) line("inline constexpr cg::cond_init capture_conds[] = {{{}}};", conds.empty() ? std::string("{}") : conds);
    line("inline cg::capture_table capture_table() {{");
    line("  return {{{}, {{capture_nodes, {}}}, {{capture_waits, {}}}, {{capture_joins, {}}}, {}}};", root.streams, rows.size(),
         waits.size(), root.joins.size(),
         constant ? fmt::format("{{capture_conds, {}}}", g_.conds.size()) : "{}");  // every cond is the root's
    line("}}");
  }

  void build_table() {
    line("inline cg::state_ptr traits::build_state(const parameters& p, [[maybe_unused]] const callbacks& cb) {{");
    if (plan_.body_graphs == 0) line("  auto state = std::make_shared<cg::table_state>(table());");
    else line("  auto state = std::make_shared<cg::table_state>(table(), {}, {});", plan_.body_graphs, g_.conds.size());
    line("  cg::graph_state& g = *state;");
    port_edges();
    line("  const values v = evaluate(p);");
    line("  std::vector<cgraph::value> s = cg::table_slots({});", computed_slots_);
    line("  compute_slots(p, v, s);");
    repeat_counts();
    if (mode_ == emit_mode::stream_capture) {
      if (const auto [conds, constant] = cond_inits(plan::location{}); !constant) {
        // Initial values that read the parameters: the capture's conds are made here.
        line("  cg::capture_table ct = table_form::capture_table();");
        line("  const cg::cond_init conds[] = {{{}}};", conds);
        line("  ct.conds = {{conds, {}}};", g_.conds.size());
        line("  cg::capture_from_table(g, table(), ct, s, {});", site(g_.range));
      } else {
        line("  cg::capture_from_table(g, table(), table_form::capture_table(), s, {});", site(g_.range));
      }
    } else {
      line("  cg::create_graph(g, {});", site(g_.range));
      create_conds(plan::location{}, "g.graph", "  ");  // every conditional is at the root (table_form_fits)
      line("  cg::build_from_table(g, table(), s);");
    }
    apply_attributes();
    line("  return state;");
    line("}}");
    line("");
  }

  void update_table() {
    line("inline void traits::update_nodes(cg::node_updater& u, const parameters& before, const parameters& p) {{");
    const auto deps = ir::index_dependencies(g_);
    // The nodes an update turns on or off, each with the parameters its `[[enabled]]` reads.
    std::vector<std::pair<std::uint32_t, std::vector<std::uint32_t>>> flips;
    for (std::uint32_t i : plan_.attributed)
      if (auto reads = enabled_reads(*plan_.steps[i].node, deps); !reads.empty()) flips.emplace_back(i, std::move(reads));
    std::set<std::uint32_t> flagged;  // c_NAME flags, each once: the conds' and the flips'
    for (std::uint32_t q : cond_params(deps)) flagged.insert(q);
    for (const auto& f : flips) flagged.insert(f.second.begin(), f.second.end());
    for (std::uint32_t q : flagged) line("  {}", changed_flag(q));
    cond_refusals(deps);
    line("  std::vector<cgraph::value> was = cg::table_slots({0}), now = cg::table_slots({0});", computed_slots_);
    line("  compute_slots(before, evaluate(before), was);");
    if (flips.empty()) {
      line("  compute_slots(p, evaluate(p), now);");
    } else {
      line("  const values v = evaluate(p);");
      line("  compute_slots(p, v, now);");
    }
    line("  cg::update_from_table(u, table(), was, now);");
    // As the readable form: a node turned on or off is only flipped (update_statements).
    for (const auto& [i, reads] : flips)
      line("  if ({}) u.enabled({}, {});", changed_any(reads), i, enabled_value(*plan_.steps[i].node));
    line("}}");
    line("");
  }

  // ---- the update ---------------------------------------------------------------------------------

  // The parameters the values of step i read.
  // The parameters a node's own values read: its arguments, not its `[[…]]` attributes
  // (priority and cluster are constants; `enabled` has its own setter, enabled_reads).
  std::vector<std::uint32_t> reads(const ir::node& n, const ir::dependency_index& deps) const {
    const ir::node_attributes* at = n.attributes == ir::none ? nullptr : &g_.attributes[n.attributes];
    auto is_attribute = [&](const ir::argument& a) {
      return at && (&a == &at->priority || &a == &at->enabled || &a == &at->device ||
                    (&a >= at->cluster.data() && &a < at->cluster.data() + 3));
    };
    std::set<std::uint32_t> out;
    ir::for_each_argument(g_, n, [&](const ir::argument& a) {
      if (a.expr < g_.exprs.size() && !is_attribute(a))
        out.insert(deps.expr_params[a.expr].begin(), deps.expr_params[a.expr].end());
    });
    return {out.begin(), out.end()};
  }

  // The parameters a node's `[[enabled(…)]]` reads (none without one).
  std::vector<std::uint32_t> enabled_reads(const ir::node& n, const ir::dependency_index& deps) const {
    if (n.attributes == ir::none || g_.attributes[n.attributes].enabled.expr == ir::none) return {};
    return deps.expr_params[g_.attributes[n.attributes].enabled.expr];
  }

  // c_NAME: whether parameter i differs between the update's two parameter sets.
  std::string changed_flag(std::uint32_t i) const {
    return fmt::format("const bool c_{0} = cg::differs(before.{0}, p.{0});", cpp_name(g_.params[i].name));
  }

  std::string changed_any(const std::vector<std::uint32_t>& params) const {
    return detail::join(params, " || ", [&](std::uint32_t p) { return "c_" + cpp_name(g_.params[p].name); });
  }

  void update() {
    if (g_.params.empty()) {
      line("inline void traits::update_nodes([[maybe_unused]] cg::node_updater& u, [[maybe_unused]] const parameters& before,");
      line("    [[maybe_unused]] const parameters& p) {{");
      line("}}");
      line("");
      return;
    }
    std::vector<std::uint32_t> all;
    std::vector<std::string> changed, part_changed, statements;
    for (std::uint32_t i = 0; i < g_.params.size(); ++i) {
      std::string test = changed_flag(i);
      changed.push_back("  " + test);
      part_changed.push_back("  [[maybe_unused]] " + test);  // a part may read only some
      all.push_back(i);
    }
    update_statements(statements);
    auto body = in_parts("update",
                         "cg::node_updater& u, const parameters& before, const parameters& p, "
                         "[[maybe_unused]] const values& v, [[maybe_unused]] const cg::graph_state& g",
                         "u, before, p, v, g", part_changed, std::move(statements));
    line("inline void traits::update_nodes([[maybe_unused]] cg::node_updater& u, [[maybe_unused]] const parameters& before,");
    line("    [[maybe_unused]] const parameters& p) {{");
    for (const auto& l : changed) line("{}", l);
    line("  if (!({})) return;", changed_any(all));
    line("  const values v = evaluate(p);");
    line("  const cg::graph_state& g = u.values_from();");
    for (const auto& l : body) line("{}", l);
    line("}}");
    line("");
  }

  // The per-node calls of update_nodes.
  void update_statements(std::vector<std::string>& statements) {
    collect into(*this, statements);
    auto deps = ir::index_dependencies(g_);
    for (std::uint32_t i = 0; i < plan_.steps.size(); ++i) {
      const ir::node& n = *plan_.steps[i].node;
      auto params = reads(n, deps);
      const detail::node_kind_info& row = detail::info(n.kind);
      // A node turned on or off by an update is only flipped: its values are set again only
      // when they read a parameter that changed (an exec's whole-graph update re-applies
      // every `enabled` itself).
      // A node moved to another device is a new node: only a new graph has it.
      if (n.attributes != ir::none && g_.attributes[n.attributes].device.expr != ir::none)
        if (const auto& moves = deps.expr_params[g_.attributes[n.attributes].device.expr]; !moves.empty())
          line("  if ({}) u.refuse();  // the device of step {}", changed_any(moves), i);
      if (row.update == detail::node_update::per_node) {
        if (!params.empty()) line("  if ({}) u.{}({}, {});", changed_any(params), row.set, i, operands(i, strategy::update));
        if (auto flips = enabled_reads(n, deps); !flips.empty())
          line("  if ({}) u.enabled({}, {});", changed_any(flips), i, enabled_value(n));
        continue;
      }
      if (params.empty()) continue;
      std::string when = changed_any(params);
      if (row.update == detail::node_update::whole_graph)
        // A host callback's arguments live in a slot the graph owns; a child graph is a new
        // build: both are applied by updating the whole graph.
        line("  if ({}) u.refuse();  // {}", when, step_comment(i).substr(3));
    }
    cond_refusals(deps);
  }

  // The update's refusals for the conds whose initial value reads a parameter that changed: a
  // cond's launch value is fixed when its handle is made, so the exec is updated as a whole.
  // Reads the c_NAME flags of cond_params().
  void cond_refusals(const ir::dependency_index& deps) {
    for (const auto& c : g_.conds) {
      if (c.default_expr == ir::none) continue;
      const auto& params = deps.expr_params[c.default_expr];
      if (!params.empty())
        line("  if ({}) u.refuse();  // cond '{}': its launch value is fixed when its handle is made", changed_any(params),
             c.name);
    }
  }

  // The parameters the conds' initial values read, each once, in order.
  std::vector<std::uint32_t> cond_params(const ir::dependency_index& deps) const {
    std::vector<std::uint32_t> out;
    for (const auto& c : g_.conds)
      if (c.default_expr != ir::none)
        for (std::uint32_t p : deps.expr_params[c.default_expr])
          if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
    std::sort(out.begin(), out.end());
    return out;
  }

  const ir::program& prog_;
  const source_file& src_;
  const ir::graph& g_;
  std::uint32_t index_;
  emit_mode mode_;
  const std::vector<std::vector<std::uint32_t>>& hosts_used_;
  plan::explicit_plan plan_;
  plan::capture_plan capture_;
  emit::value_printer values_;
  std::string& out_;
  // The launches of the graph's build so far, in the order it is written: repeats_launch.
  plan::launch_memory written_launches_{g_};
  std::vector<std::string>* sink_ = nullptr;  // where line() writes while set (collect)
  bool table_ = false;                        // written in the table form
  std::uint32_t computed_slots_ = 0;          // table form: slots computed from the parameters
};

// Host callbacks each graph uses, directly or through `call`, in declaration order; and the
// graphs in an order where every callee comes before its callers.
struct call_structure {
  std::vector<std::vector<std::uint32_t>> hosts_used;
  std::vector<std::uint32_t> order;
};

void collect(const ir::graph& g, std::set<std::uint32_t>& hosts, std::set<std::uint32_t>& callees) {
  ir::for_each_node(g, g.root, [&](const ir::node& n) {
    if (n.kind == ir::node_kind::host) hosts.insert(n.callee);
    if (n.kind == ir::node_kind::child_graph) callees.insert(n.callee);
  });
}

call_structure analyse_calls(const ir::program& prog) {
  call_structure out;
  std::size_t n = prog.graphs.size();
  std::vector<std::set<std::uint32_t>> hosts(n), callees(n);
  for (std::uint32_t i = 0; i < n; ++i) collect(prog.graphs[i], hosts[i], callees[i]);
  std::vector<int> state(n, 0);  // 0 new, 1 visiting, 2 done (the checker refused recursion)
  std::function<void(std::uint32_t)> visit = [&](std::uint32_t i) {
    if (state[i]) return;
    state[i] = 1;
    for (auto c : callees[i]) {
      visit(c);
      hosts[i].insert(hosts[c].begin(), hosts[c].end());
    }
    state[i] = 2;
    out.order.push_back(i);
  };
  for (std::uint32_t i = 0; i < n; ++i) visit(i);
  for (auto& h : hosts) out.hosts_used.emplace_back(h.begin(), h.end());
  return out;
}

// The .cgraph structs, once per file (both modes' headers may meet in one program): each is the
// C++ struct of its name at global scope when the included headers declare one, else a
// layout-equivalent struct, and static_asserts hold either to the .cgraph layout.
template <typename Line>
void emit_structs(const ir::program& prog, const source_file& src, Line& line) {
  const std::string ns = file_namespace(src.name());
  std::string guard = "CGRAPH_GENERATED_STRUCTS_" + ns;
  line("#ifndef " + guard);
  line("#define " + guard);
  line("#include <cstddef>");
  line("#include <type_traits>");
  line("");
  // Fields' structs first: a field's type must be complete.
  std::vector<std::uint32_t> order;
  std::vector<bool> placed(prog.structs.size());
  auto place = [&](auto& self, std::uint32_t i) -> void {
    if (placed[i]) return;
    placed[i] = true;
    for (const auto& f : prog.structs[i].fields)
      if (f.t.is_struct()) self(self, f.t.id());
    order.push_back(i);
  };
  for (std::uint32_t i = 0; i < prog.structs.size(); ++i) place(place, i);
  line("// A .cgraph struct is the C++ struct of its name when the headers above declare one at global");
  line("// scope; these declarations make the name exist when they do not.");
  for (auto i : order) line(fmt::format("struct {};", cpp_name(prog.structs[i].name)));
  line("");
  for (auto i : order) {
    const ir::structure& st = prog.structs[i];
    const std::string name = cpp_name(st.name);
    line(fmt::format("namespace cgraph_generated::{}::layout {{", ns));
    line(fmt::format("struct {} {{  // {}", name, src.position(st.range.begin)));
    // A struct field is the chosen struct, the user's or this namespace's; a pointer to a
    // struct is a void* of the same layout here, since the chosen struct may be this one.
    for (const auto& f : st.fields)
      line(fmt::format("  {}{} {};", f.t.is_struct() ? "::cgraph_generated::" + ns + "::" : "",
                       cpp_type(f.t.k == ir::type::kind::struct_pointer ? ir::type::void_pointer(f.t.is_const) : f.t, prog.structs),
                       cpp_name(f.name)));
    line("};");
    line(fmt::format("}}  // namespace cgraph_generated::{}::layout", ns));
    line(fmt::format("namespace cgraph_generated::{} {{", ns));
    line(fmt::format("using {0} = cgraph::gen::complete_or<::{0}, layout::{0}>;", name));
    const std::string where = src.position(st.range.begin);
    line(fmt::format("static_assert(sizeof({0}) == {1} && alignof({0}) == {2} && std::is_trivially_copyable_v<{0}>,", name,
                     st.size, st.align));
    line(fmt::format("              {});", quoted(fmt::format("{}: the C++ struct '{}' must be trivially copyable, {} bytes, "
                                                              "aligned to {}, as declared here",
                                                              where, st.name, st.size, st.align))));
    for (const auto& f : st.fields)
      line(fmt::format("static_assert(offsetof({}, {}) == {}, {});", name, cpp_name(f.name), f.offset,
                       quoted(fmt::format("{}: field '{}' of the C++ struct '{}' must be at byte {}", src.position(f.range.begin),
                                          f.name, st.name, f.offset))));
    line(fmt::format("}}  // namespace cgraph_generated::{}", ns));
    line("");
  }
  line("#endif  // " + guard);
  line("");
}

}  // namespace

emit_result emit_cpp(const ir::program& prog, const source_file& src, emit_mode mode, std::size_t table_threshold) {
  emit_result result;
  for (const auto& k : prog.kernels)
    if (k.library != ir::none)
      result.diags.error(k.range, fmt::format("kernel '{}' comes from '{}' at run time; generated C++ calls kernels "
                                              "as C++ symbols (declare it without 'from' and include its header, or "
                                              "build this file with the run-time path)",
                                              k.name, prog.libraries[k.library].name));
  if (result.diags.has_errors()) return result;

  std::string out;
  auto line = [&](std::string_view s) {
    out += s;
    out += '\n';
  };
  line(fmt::format("// Generated by cgraphc emit-cpp --mode {} from {}. Do not edit.",
                   mode == emit_mode::explicit_nodes ? "explicit" : "capture", printable(src.name())));
  line("#pragma once");
  line("");
  line("#include <cgraph/runtime/generated.hpp>");
  line("");
  if (uses_scalar(prog, ir::scalar::f16)) line("#include <cuda_fp16.h>");
  if (uses_scalar(prog, ir::scalar::bf16)) line("#include <cuda_bf16.h>");
  line("#include <cstdint>");
  line("#include <functional>");
  line("#include <memory>");
  line("#include <tuple>");
  line("#include <utility>");
  if (!prog.includes.empty()) line("");
  // As written: a header name takes no escapes (a backslash is a Windows path's), and check refused
  // the bytes it cannot hold.
  for (const auto& inc : prog.includes) line(fmt::format("#include \"{}\"", inc));
  line("");
  if (!prog.structs.empty()) emit_structs(prog, src, line);
  // The mode's inline namespace keeps the two forms of one file apart when a program links both.
  std::string_view mode_namespace = mode == emit_mode::explicit_nodes ? "explicit_mode" : "capture_mode";
  line(fmt::format("namespace cgraph_generated::{} {{", file_namespace(src.name())));
  line(fmt::format("inline namespace {} {{", mode_namespace));
  line("");
  line("namespace cg = cgraph::gen;");
  line(fmt::format("inline constexpr const char* file = {};", quoted(src.name())));
  line("");
  if (!prog.kernels.empty())
    line("// Each kernel's C++ symbol must take the parameters its declaration gives (by ABI: size, signedness, "
         "constness).");
  for (const auto& k : prog.kernels) {
    const std::string symbol = fmt::format("decltype(&{})", qualified_symbol(k));
    line(fmt::format("static_assert(cg::parameter_count<{}>() == {},", symbol, k.params.size()));
    line(fmt::format("              {});",
                     quoted(fmt::format("{}: the C++ kernel '{}' does not take {} parameter{} as declared here: kernel {}({})",
                                        src.position(k.range.begin), k.symbol, k.params.size(),
                                        k.params.size() == 1 ? "" : "s", k.name, signature_text(prog, k.params)))));
    for (const auto& [i, p] : detail::views::enumerate(k.params)) {
      line(fmt::format("static_assert(cg::parameter_at_matches<{}, {}, {}>(),", symbol, i, cpp_type(p.t, prog.structs)));
      line(fmt::format("              {});",
                       quoted(fmt::format("{}: parameter {} '{}' of kernel '{}' is declared {}; the C++ kernel's "
                                          "parameter {} must be {}",
                                          src.position(p.range.begin), i + 1, p.name, k.name,
                                          ir::to_string(p.t, prog.structs), i + 1, abi_rule(prog, p.t)))));
    }
  }
  line("");
  auto calls = analyse_calls(prog);
  for (auto i : calls.order) graph_emitter(prog, src, i, mode, calls.hosts_used, out, table_threshold).run();
  line(fmt::format("}}  // namespace {}", mode_namespace));
  line(fmt::format("}}  // namespace cgraph_generated::{}", file_namespace(src.name())));
  result.code = std::move(out);
  return result;
}

}  // namespace cgraph

