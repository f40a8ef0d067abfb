#include "graph_lowering.hpp"

#include "body_sinks.hpp"
#include "dependency_order.hpp"

#include <cgraph/compiler/eval.hpp>
#include <cgraph/compiler/launch_limits.hpp>


#include <cgraph/dsl/parse.hpp>
#include <cgraph/dsl/suggest.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <unordered_map>
#include <unordered_set>

#include <boost/container/small_vector.hpp>

#include <fmt/format.h>

namespace cgraph::compiler::detail {

namespace {

// The nodes the next statement waits for (sorted). Inline for the usual one or few: every
// statement returns one, so a heap list cost an allocation per node.
using frontier = boost::container::small_vector<std::uint32_t, 4>;

constexpr ir::type u32_type = ir::type::of(ir::scalar::u32);
constexpr ir::type u64_type = ir::type::of(ir::scalar::u64);

// How many nodes of its own body `block` makes, counting the statements of `parallel`,
// `{ … }` and `on device` blocks, which make nodes of the same body; a `for` counts as one
// (its iterations are known only when it is lowered).
std::size_t nodes_made(const ast::block& block);

struct node_count {
  std::size_t operator()(const ast::let_stmt&) const { return 0; }
  std::size_t operator()(const ast::x3::forward_ast<ast::cond_stmt>&) const { return 0; }
  std::size_t operator()(const ast::x3::forward_ast<ast::repeat_stmt>&) const { return 2; }  // start, loop
  std::size_t operator()(const ast::x3::forward_ast<ast::alloc_stmt>&) const { return 2; }  // and the free a body's end may add
  std::size_t operator()(const ast::x3::forward_ast<ast::parallel_stmt>& x) const { return nodes_made(x.get().branches); }
  std::size_t operator()(const ast::x3::forward_ast<ast::block>& x) const { return nodes_made(x.get()); }
  std::size_t operator()(const ast::x3::forward_ast<ast::device_stmt>& x) const { return nodes_made(x.get().body); }
  std::size_t operator()(const auto&) const { return 1; }
};

std::size_t nodes_made(const ast::block& block) {
  std::size_t n = 0;
  for (const auto& s : block.statements) n += boost::apply_visitor(node_count{}, s);
  return n;
}

class graph_lowering {
public:
  graph_lowering(const program_context& ctx, std::uint32_t index)
      : ctx_(ctx), decl_(*ctx.graph_decls[index]), index_(index), program_(ctx.program),
        graph_(ctx.program.graphs[index]), globals_(ctx.globals), diags_(ctx.diags), limits_(ctx.limits),
        exprs_(graph_, ctx.diags, scope_, ctx.globals, ctx.program.structs, ctx.limits, &ctx.constants) {}

  void run() {
    const std::size_t errors_before = diags_.error_count();
    graph_.name = decl_.name.name;
    graph_.range = range_of(decl_);
    scope_.push();
    lower_parameters();
    graph_.root = ctx_.bodies ? lower_deferred_body() : lower_body(decl_.body, false);
    pop_scope();
    // Whole: the lowering's queries indexed only the expressions made before each.
    graph_.allocation_reads.clear();
    ir::index_allocation_reads(graph_, graph_.allocation_reads);
    report_unresolved_afters();
    for (std::size_t i = 0; i < conds_.size(); ++i)
      if (conds_[i].uses == 0 && !graph_.conds[i].synthetic)
        diags_.error(graph_.conds[i].range,
                     fmt::format("cond '{}' is not used by any if, while or switch", graph_.conds[i].name));
      else if (conds_[i].else_if)
        for (const auto& r : conds_[i].passed)
          diags_.error(r, fmt::format("the cond of an 'else if' cannot be passed to 'call': its handle is made on the "
                                      "'else' body's graph, after the called graph is built; set '{}' with a kernel "
                                      "of this graph", graph_.conds[i].name));
    // A cond passed with a wrong type no longer reaches its kernel: rule 8 speaks of clean graphs.
    if (diags_.error_count() == errors_before) report_endless_whiles();
  }

  // §13 rule 8: a `while` whose cond is reset to a non-zero constant at every launch, and that
  // no kernel receives, runs forever: only a kernel (cudaGraphSetConditional) can clear it.
  void report_endless_whiles() {
    std::vector<bool> received(graph_.conds.size(), false);
    ir::for_each_node(graph_, graph_.root, [&](const ir::node& n) {
      // A `call` passing the cond counts: the called graph's kernels may clear it.
      if (n.kind != ir::node_kind::kernel && n.kind != ir::node_kind::child_graph) return;
      for (const auto& a : graph_.args(n))
        if (a.expr < graph_.exprs.size() && graph_.exprs[a.expr].op == ir::op::cond_ref &&
            graph_.exprs[a.expr].index < received.size())
          received[graph_.exprs[a.expr].index] = true;
    });
    ir::for_each_node(graph_, graph_.root, [&](const ir::node& n) {
      if (n.kind != ir::node_kind::conditional || n.cond_kind != ir::cond_kind::while_loop || n.from_repeat ||
          n.cond >= graph_.conds.size() || received[n.cond])
        return;
      const ir::cond_handle& c = graph_.conds[n.cond];
      if (c.default_expr == ir::none || c.default_expr >= graph_.exprs.size()) return;
      const ir::expr& init = graph_.exprs[c.default_expr];
      if (!init.is_constant() || ir::convert(init.constant(), u32_type).as_u64() == 0) return;
      auto& d = diags_.error(n.range, fmt::format("this 'while' can never end: cond '{}' is set to {} at every launch "
                                                  "and no kernel receives '{}' to clear it",
                                                  c.name, ir::format_value(init.constant()), c.name));
      d.note(c.range, fmt::format("'{}' is declared here; pass it to a kernel that calls "
                                              "cudaGraphSetConditional", c.name));
    });
  }

private:
  struct label_info {
    std::uint32_t body_id;
    std::uint32_t node;
    source_range range;
    std::uint32_t scope;  // the `for` iteration that declared it (label_scope_); 0 outside every `for`
  };
  // An `after` that no body resolved, with the innermost `for` iteration it was written in.
  struct unresolved_after {
    ast::after_label name;  // by value, as pending_after holds it
    std::uint32_t scope;
  };
  // An `after` waiting for its body's end. The label by value: in compile's streaming mode its
  // statement's tree is gone by then.
  struct pending_after {
    std::uint32_t node;
    ast::after_label name;
  };
  struct body_context {
    ir::body* body;
    std::uint32_t id;
    bool conditional;
    std::vector<pending_after> afters;
    std::unordered_map<std::string_view, std::uint32_t> labels;
    // One iteration of a `for`: it adds to the enclosing body's nodes, but its labels are its
    // own; an `after` it cannot resolve goes to `enclosing`.
    body_context* enclosing = nullptr;
  };
  struct cond_info {
    std::uint32_t body_id = 0;
    std::uint32_t uses = 0;
    source_range first_use;
    bool else_if = false;               // drives the `if` of an `else if`: its handle is made late
    std::vector<source_range> passed;   // where a `call` passes it
  };

  // ---- parameters ----------------------------------------------------------------------

  void lower_parameters() {
    for (const auto& p : decl_.params) {
      auto t = resolve_type(p.type, diags_, globals_, program_.structs);
      ir::parameter param{std::string(p.name.name), t.value_or(ir::type::of(ir::scalar::i64)), ir::none, range_of(p)};
      // A cond parameter is the caller's handle (LANGUAGE.md §11): `call` passes it, or the
      // user gives a cudaGraphConditionalHandle of the graph this one is embedded in.
      if (t && t->k == ir::type::kind::cond && p.default_value)
        diags_.error(range_of(*p.default_value), fmt::format("cond parameter '{}' cannot have a default; its handle "
                                                             "comes from the graph that calls this one", p.name.name));
      else if (p.default_value) {
        expr_lowering::unshared own(exprs_);
        std::uint32_t e = exprs_.lower(*p.default_value);
        if (t) param.default_expr =
            exprs_.convert(e, *t, ir::check::any, range_of(*p.default_value),
                           [&] { return fmt::format("the default of parameter '{}'", p.name.name); }).expr;
        if (param.default_expr == bad_expr) param.default_expr = ir::none;
      }
      ir::expr ref;
      ref.op = ir::op::param;
      ref.result = value_type(param.t);
      ref.index = static_cast<std::uint32_t>(graph_.params.size());
      ref.a = param.default_expr;
      ref.range = range_of(p.name);
      graph_.exprs.push_back(ref);
      auto ref_index = static_cast<std::uint32_t>(graph_.exprs.size() - 1);
      declare(p.name, symbol{symbol::kind::param, ref_index, ref.index, range_of(p.name)});
      graph_.params.push_back(std::move(param));
    }
  }

  // The type an expression of a declared type has: integers compute in 64 bits, floats in f64.
  static ir::type value_type(ir::type t) {
    if (t.is_integer()) return ir::type::of(ir::scalar::i64);
    if (t.is_float()) return ir::type::of(ir::scalar::f64);
    return t;
  }

  void declare(const ast::identifier& name, const symbol& s) {
    const symbol* previous = scope_.declare(name.name, s);
    auto global = globals_.find(name.name);
    if (!previous && global == globals_.end()) return;
    auto& d = diags_.error(range_of(name), fmt::format("redefinition of '{}'", name.name));
    d.note(previous ? previous->declared_at : global->second.range, "previous declaration is here");
  }

  // ---- bodies and blocks -----------------------------------------------------------------

  ir::body lower_body(const ast::block& block, bool conditional) {
    return in_new_body(nodes_made(block), conditional, [&] { lower_block(block, {}); });
  }

  // The root body of a graph whose body parse() deferred (program_context::bodies): the
  // statements come from dsl::parse_body one at a time, each lowered and dropped before the next
  // is parsed. Its size is known only roughly, from the ';' and '}' in it; its arguments are
  // at most one a ',' and one a statement (launch dimensions are commas too), its launches one
  // a statement, and the values they write one a ',' and one a statement again. The pools are
  // reserved as much: the regrowth of a vector copied it and held
  // the old copy beside the new at the front end's peak (issue 17), and the places never
  // written are never touched, so they take no memory.
  ir::body lower_deferred_body() {
    graph_.arg_pool.reserve(graph_.arg_pool.size() + decl_.body.deferred_commas + decl_.body.deferred_ends);
    graph_.launches.reserve(graph_.launches.size() + decl_.body.deferred_ends);
    graph_.launch_values.reserve(graph_.launch_values.size() + decl_.body.deferred_commas + decl_.body.deferred_ends);
    return in_new_body(decl_.body.deferred_ends, false, [&] {
      const deferred_bodies& bodies = *ctx_.bodies;
      frontier in;
      scope_.push();
      dsl::parse_body(bodies.source, decl_.body, bodies.struct_names, bodies.syntax_errors,
                      [&](const ast::statement& s) { in = lower_statement(s, in); }, limits_.max_nesting);
      pop_scope();
    });
  }

  // A new body made current while `lower_statements` fills it, then its `after` edges.
  template <typename F>
  ir::body in_new_body(std::size_t nodes, bool conditional, F&& lower_statements) {
    ir::body body;
    // Room for the body's nodes up front: the vector's regrowth copied every node made so far
    // and held up to twice the memory (a `parallel` block makes more nodes than its body has
    // statements, and reserving one per statement then doubled the vector).
    body.nodes.reserve(nodes);
    body_context ctx{&body, next_body_id_++, conditional, {}, {}};
    body_context* outer = current_;
    current_ = &ctx;
    lower_statements();
    resolve_afters(ctx);
    if (!conditional) free_at_end(body);
    current_ = outer;
    return body;
  }

  // LANGUAGE.md §13 rule 10: a parameter or `let` never used is a warning. Not once an error
  // was reported: a statement that failed may have been the use.
  void pop_scope() {
    scope_.pop([&](std::string_view name, const symbol& s) {
      if (diags_.has_errors() || repeated_iteration_) return;
      if (s.k == symbol::kind::param) diags_.warning(s.declared_at, fmt::format("parameter '{}' is never used", name));
      else if (s.k == symbol::kind::let) diags_.warning(s.declared_at, fmt::format("let '{}' is never used", name));
    });
  }

  frontier lower_block(const ast::block& block, frontier in) {
    scope_.push();
    for (const auto& s : block.statements) in = lower_statement(s, std::move(in));
    pop_scope();
    return in;
  }

  frontier lower_statement(const ast::statement& s, const frontier& in) {
    struct visitor {
      graph_lowering& self;
      const frontier& in;
      frontier operator()(const ast::launch_stmt& x) const { return self.lower_launch(x, in); }
      frontier operator()(const ast::builtin_stmt& x) const { return self.lower_builtin(x, in); }
      frontier operator()(const ast::host_stmt& x) const { return self.lower_host(x, in); }
      frontier operator()(const ast::event_stmt& x) const { return self.lower_event(x, in); }
      frontier operator()(const ast::x3::forward_ast<ast::alloc_stmt>& x) const { return self.lower_alloc(x.get(), in); }
      frontier operator()(const ast::free_stmt& x) const { return self.lower_free(x, in); }
      frontier operator()(const ast::call_stmt& x) const { return self.lower_call(x, in); }
      frontier operator()(const ast::let_stmt& x) const { return self.lower_let(x, in); }
      frontier operator()(const ast::x3::forward_ast<ast::cond_stmt>& x) const { return self.lower_cond(x.get(), in); }
      frontier operator()(const ast::x3::forward_ast<ast::if_stmt>& x) const { return self.lower_if(x.get(), in); }
      frontier operator()(const ast::x3::forward_ast<ast::while_stmt>& x) const { return self.lower_while(x.get(), in); }
      frontier operator()(const ast::x3::forward_ast<ast::switch_stmt>& x) const { return self.lower_switch(x.get(), in); }
      frontier operator()(const ast::x3::forward_ast<ast::repeat_stmt>& x) const { return self.lower_repeat(x.get(), in); }
      frontier operator()(const ast::x3::forward_ast<ast::parallel_stmt>& x) const { return self.lower_parallel(x.get(), in); }
      frontier operator()(const ast::x3::forward_ast<ast::block>& x) const { return self.lower_block(x.get(), in); }
      frontier operator()(const ast::x3::forward_ast<ast::for_stmt>& x) const { return self.lower_for(x.get(), in); }
      frontier operator()(const ast::collective_stmt& x) const { return self.lower_collective(x, in); }
      frontier operator()(const ast::x3::forward_ast<ast::group_stmt>& x) const { return self.lower_group(x.get(), in); }
      frontier operator()(const ast::x3::forward_ast<ast::device_stmt>& x) const { return self.lower_device(x.get(), in); }
    };
    return boost::apply_visitor(visitor{*this, in}, s);
  }

  frontier add_node(ir::node n, const frontier& in, const ast::node_prefix& prefix,
                    const ast::after_list& after) {
    if (!prefix.attributes().empty()) lower_attributes(n, prefix.attributes());
    if (device_block_.expr != ir::none) place_on_block_device(n);
    return add_node(std::move(n), in, prefix.label(), {&prefix.after(), &after});
  }

  // A node's dependencies go to the graph's one list (ir::graph::dep_pool).
  void set_deps(ir::node& n, std::span<const std::uint32_t> deps) {
    n.deps_first = static_cast<std::uint32_t>(graph_.dep_pool.size());
    n.deps_count = static_cast<std::uint32_t>(deps.size());
    graph_.dep_pool.insert(graph_.dep_pool.end(), deps.begin(), deps.end());
  }

  // Appends `value` to a node's list [first, first + count) of `pool` (a graph's dep_pool or
  // arg_pool): in place while the list ends the pool (a node being made), else after moving the
  // list to the end (an `after` resolved when its body ends, a conditional whose body was
  // lowered between its arguments; the few entries left behind are read by nothing). The pool
  // grows as a vector does: an exact reserve here reallocated the whole pool for every such
  // `after`, quadratic in the graph (7.1 G instructions for a 200 000-node check, 2.6 G before
  // the pool).
  template <typename T>
  static void append_to_list(std::vector<T>& pool, std::uint32_t& first, std::uint32_t& count, const T& value) {
    if (first + count != pool.size()) {
      const auto moved = static_cast<std::uint32_t>(pool.size());
      for (std::uint32_t k = 0; k < count; ++k) {
        const T entry = pool[first + k];  // a copy: push_back may reallocate
        pool.push_back(entry);
      }
      first = moved;
    }
    pool.push_back(value);
    ++count;
  }

  void add_dep(ir::node& n, std::uint32_t d) { append_to_list(graph_.dep_pool, n.deps_first, n.deps_count, d); }
  void add_arg(ir::node& n, const ir::argument& a) {
    append_to_list(graph_.arg_pool, n.args_first, n.args_count, ir::pooled_argument{a.expr, form_of(a), a.range});
  }

  // The index in graph::arg_forms of the form of `a`, a node's argument, added on first use. A
  // graph has a handful, so a small table hashed by the form finds it in one probe; a miss
  // (a new form, or two forms sharing a slot) searches the whole list.
  std::uint32_t form_of(const ir::argument& a) {
    if (a.offset != 0) throw std::logic_error("graph_lowering: a node's argument has no field offset");
    const ir::argument_form form{a.target, a.check};
    const auto bits = std::bit_cast<std::uint64_t>(a.target) ^ (static_cast<std::uint64_t>(a.check) << 63);
    std::uint32_t& cached = form_cache_[(bits * 0x9E3779B97F4A7C15ull) >> (64 - form_cache_bits)];
    if (cached < graph_.arg_forms.size() && graph_.arg_forms[cached] == form) return cached;
    const auto found = std::find(graph_.arg_forms.begin(), graph_.arg_forms.end(), form);
    cached = static_cast<std::uint32_t>(found - graph_.arg_forms.begin());
    if (found == graph_.arg_forms.end()) graph_.arg_forms.push_back(form);
    return cached;
  }

  // A conditional's bodies, made whole before they join the graph's list: a body nested in them
  // joined it while they were lowered, so appending them together keeps each node's bodies
  // contiguous.
  using bodies_list = boost::container::small_vector<ir::body, 2>;
  void set_bodies(ir::node& n, bodies_list& bodies) {
    n.bodies_first = static_cast<std::uint32_t>(graph_.body_pool.size());
    n.bodies_count = static_cast<std::uint32_t>(bodies.size());
    for (ir::body& b : bodies) graph_.body_pool.push_back(std::move(b));
  }

  frontier add_node(ir::node n, const frontier& in, const ast::identifier* label,
                    std::initializer_list<const ast::after_list*> afters) {
    ir::body& body = *current_->body;
    auto index = static_cast<std::uint32_t>(body.nodes.size());
    set_deps(n, {in.data(), in.size()});
    if (label) {
      // Labels are unique in a graph, but each iteration of a `for` has its own (LANGUAGE.md
      // §11): unique within the iteration, its conditionals' bodies included, they may reuse a
      // name from outside the loop and go out of scope when the iteration ends
      // (end_iteration_labels).
      const label_info info{current_->id, index, range_of(*label), label_scope_};
      auto [it, inserted] = labels_.try_emplace(label->name, info);  // one lookup: most labels are new
      if (!inserted && it->second.scope == label_scope_) {
        auto& d = diags_.error(range_of(*label), fmt::format("duplicate label '{}'", label->name));
        d.note(it->second.range, "previous label is here");
      } else {
        if (label_scope_ != 0)
          shadowed_labels_.emplace_back(label->name, inserted ? std::nullopt : std::optional(it->second));
        it->second = info;
        n.label = static_cast<std::uint32_t>(graph_.labels.size());
        graph_.labels.emplace_back(label->name);
        current_->labels.emplace(label->name, index);
      }
    }
    for (const auto* list : afters)
      for (const auto& name : *list) current_->afters.push_back({index, name});
    body.nodes.push_back(std::move(n));
    ++graph_.node_count;
    return {index};
  }

  // `[[priority(N)]]`, `[[cluster(X, Y, Z)]]`, `[[enabled(EXPR)]]` (LANGUAGE.md §11).
  void lower_attributes(ir::node& n, const ast::list<ast::attribute>& attributes) {
    static constexpr std::string_view known[] = {"priority", "cluster", "enabled", "device"};
    ir::node_attributes out;
    std::unordered_map<std::string_view, source_range> seen;
    const bool kernel = n.kind == ir::node_kind::kernel;
    const bool copy_or_set = n.kind == ir::node_kind::memcpy || n.kind == ir::node_kind::memset;
    for (const auto& a : attributes) {
      const std::string_view name = a.name.name;
      if (std::find(std::begin(known), std::end(known), name) == std::end(known)) {
        auto near = dsl::closest(name, known);
        diags_.error(range_of(a.name), fmt::format("unknown attribute '{}'{}", name,
                                                   near ? fmt::format("; did you mean '{}'?", *near)
                                                        : std::string("; the attributes are priority, cluster, enabled "
                                                                      "and device")));
        continue;
      }
      if (auto [it, inserted] = seen.try_emplace(name, range_of(a)); !inserted) {
        auto& d = diags_.error(range_of(a), fmt::format("attribute '{}' is given twice", name));
        d.note(it->second, "first given here");
        continue;
      }
      const bool is_enabled = name == "enabled";
      if (name == "device") {
        if (a.args.size() != 1) {
          diags_.error(range_of(a), "'device' takes one value");
          continue;
        }
        out.device = lower_device_index(a.args[0], n.kind, range_of(a));
        continue;
      }
      if (!(kernel || (is_enabled && copy_or_set))) {
        diags_.error(range_of(a), is_enabled ? "'enabled' applies to kernel, memcpy and memset nodes"
                                             : fmt::format("'{}' applies to kernel nodes", name));
        continue;
      }
      const std::size_t most = name == "cluster" ? 3 : 1;
      if (a.args.empty() || a.args.size() > most) {
        diags_.error(range_of(a), most == 1 ? fmt::format("'{}' takes one value", name)
                                            : std::string("'cluster' takes one to three dimensions"));
        continue;
      }
      auto what = [&](std::size_t k) { return most == 1 ? fmt::format("attribute '{}'", name)
                                                        : fmt::format("dimension {} of attribute 'cluster'", "xyz"[k]); };
      auto constant = [&](std::size_t k, ir::type t, ir::check c) {
        std::uint32_t e = exprs_.lower(a.args[k]);
        if (e == bad_expr) return ir::argument{};
        if (!exprs_.at(e).is_constant()) {
          diags_.error(range_of(a.args[k]), fmt::format("{} must be a constant", what(k)));
          return ir::argument{};
        }
        auto converted = exprs_.convert(e, t, c, range_of(a.args[k]), [&] { return what(k); });
        return converted.expr == bad_expr ? ir::argument{} : converted;
      };
      if (name == "priority") {
        out.priority = constant(0, ir::type::of(ir::scalar::i32), ir::check::any);
      } else if (name == "cluster") {
        for (std::size_t k = 0; k < 3; ++k)
          out.cluster[k] = k < a.args.size() ? constant(k, u32_type, ir::check::positive)
                                             : ir::argument{exprs_.constant(ir::value::integer(1), u32_type, range_of(a)),
                                                            u32_type, ir::check::positive, 0, range_of(a)};
        check_cluster(n, out, a);
      } else {
        std::uint32_t e = exprs_.lower(a.args[0]);
        if (e != bad_expr)
          out.enabled = exprs_.convert(e, ir::type::of(ir::scalar::boolean), ir::check::any, range_of(a.args[0]),
                                       [] { return std::string("attribute 'enabled'"); });
      }
    }
    n.attributes = static_cast<std::uint32_t>(graph_.attributes.size());
    graph_.attributes.push_back(out);
  }

  // ---- devices (LANGUAGE.md §15) --------------------------------------------------------------

  // The nodes a device can be given: those CUDA adds in a device's context. A collective's work
  // runs on its communicator's device; a device given to it is checked against that when built.
  static bool placeable(ir::node_kind k) {
    return k == ir::node_kind::kernel || k == ir::node_kind::memcpy || k == ir::node_kind::memset ||
           k == ir::node_kind::collective;
  }

  // `[[device(N)]]`'s or `on device(N)`'s N as a u32 argument, or an empty one after an error.
  ir::argument lower_device_index(const ast::expression& x, std::optional<ir::node_kind> kind, source_range at) {
    if (kind && !placeable(*kind)) {
      diags_.error(at, fmt::format("'device' applies to kernel, memcpy, memset and collective nodes, not to a {} node",
                                   ir::to_string(*kind)));
      return {};
    }
    if (current_->conditional) {
      diags_.error(at, "a node in a conditional body runs on its conditional node's device; 'device' is not allowed "
                       "there");
      return {};
    }
    std::uint32_t e = exprs_.lower(x);
    if (e == bad_expr) return {};
    auto converted = exprs_.convert(e, u32_type, ir::check::any, range_of(x), [] { return std::string("the device"); });
    return converted.expr == bad_expr ? ir::argument{} : converted;
  }

  // A node made inside `on device(N) { … }` takes N unless it names a device of its own.
  void place_on_block_device(ir::node& n) {
    if (!placeable(n.kind)) {
      auto& d = diags_.error(n.range, fmt::format("a {} node cannot be placed on a device; 'on device' holds kernel "
                                                  "launches, memcpy, memset, collectives and groups",
                                                  ir::to_string(n.kind)));
      d.note(device_block_range_, "the device is given here");
      return;
    }
    if (n.attributes == ir::none) {
      n.attributes = static_cast<std::uint32_t>(graph_.attributes.size());
      graph_.attributes.emplace_back();
    }
    ir::node_attributes& at = graph_.attributes[n.attributes];
    if (at.device.expr == ir::none) at.device = device_block_;
  }

  frontier lower_device(const ast::device_stmt& s, const frontier& in) {
    ir::argument device = lower_device_index(s.device, std::nullopt, range_of(s.device));
    ir::argument outer = std::exchange(device_block_, device);
    source_range outer_range = std::exchange(device_block_range_, range_of(s.device));
    frontier out = lower_block(s.body, in);
    device_block_ = outer;
    device_block_range_ = outer_range;
    return out;
  }

  // ---- collectives (LANGUAGE.md §15) ----------------------------------------------------------

  frontier lower_collective(const ast::collective_stmt& s, const frontier& in) {
    ir::node n = make_node(ir::node_kind::collective, s);
    collective_node_checks(n);
    lower_collective_call(s, n);
    return add_node(std::move(n), in, s.prefix, s.after);
  }

  // `group { … }`: one node whose collectives NCCL issues together (ncclGroupStart … End), as
  // one process driving several GPUs must.
  frontier lower_group(const ast::group_stmt& s, const frontier& in) {
    ir::node n = make_node(ir::node_kind::collective, s);
    collective_node_checks(n);
    for (const auto& statement : s.body.statements) {
      const auto* call = boost::get<ast::collective_stmt>(&statement);
      if (!call) {
        const auto& t = boost::apply_visitor([](const auto& x) -> const ast::tagged& { return ast::unwrap(x); }, statement);
        diags_.error(source_range{t.begin, t.end}, "a 'group' holds collectives only (all_reduce, all_gather, "
                                                   "reduce_scatter, broadcast, reduce, send, recv)");
        continue;
      }
      if (call->prefix.parts || !call->after.empty())
        diags_.error(range_of(call->keyword), "a collective in a 'group' takes no label, attributes or 'after'; give "
                                              "them to the group");
      lower_collective_call(*call, n);
    }
    if (n.args_count == 0) {
      diags_.error(range_of(s), "an empty 'group'; it needs at least one collective");
      return in;
    }
    return add_node(std::move(n), in, s.prefix, s.after);
  }

  void collective_node_checks(ir::node& n) {
    if (current_->conditional)
      diags_.error(n.range, "collectives are not allowed inside a conditional body (NCCL's captured work does not "
                            "instantiate there: NVIDIA/nccl issue 1986)");
    n.callee = static_cast<std::uint32_t>(graph_.collectives.size());
    graph_.root_only |= ir::root_only_collective;
  }

  // One collective's arguments, checked against its roles (dsl::collectives) and stored in the
  // node's collective_slots order.
  void lower_collective_call(const ast::collective_stmt& s, ir::node& n) {
    const dsl::collective_info& info = dsl::info(s.keyword.op);
    ir::collective_call call{s.keyword.op, dsl::reduction::sum, ir::scalar::u8, range_of(s)};
    std::array<ir::argument, ir::collective_slots> slots{};
    const source_range here = range_of(s.keyword);
    slots[ir::slot_send] = slots[ir::slot_recv] = {exprs_.constant(ir::value::pointer(0), ir::type::null(), here),
                                                   ir::type::void_pointer(true), ir::check::any, 0, here};
    slots[ir::slot_recv].target = ir::type::void_pointer(false);
    slots[ir::slot_peer] = {exprs_.constant(ir::value::integer(0), ir::type::of(ir::scalar::i64), here),
                            ir::type::of(ir::scalar::i32), ir::check::any, 0, here};
    if (s.args.size() != info.roles.size()) {
      diags_.error(here, fmt::format("'{}' expects {} arguments ({}), got {}", info.name, info.roles.size(),
                                     role_names(info.roles), s.args.size()));
    } else {
      std::optional<ir::scalar> element;
      const ast::expression* first_buffer = nullptr;
      for (std::size_t i = 0; i < s.args.size(); ++i) {
        const ast::expression& x = s.args[i];
        auto what = [&] { return fmt::format("the {} of '{}'", role_name(info.roles[i]), info.name); };
        switch (info.roles[i]) {
          case 's':
          case 'r': {
            const bool send = info.roles[i] == 's';
            std::uint32_t e = exprs_.lower(x);
            if (e == bad_expr) break;
            const ir::type t = exprs_.at(e).result;
            if (t.k != ir::type::kind::pointer) {
              diags_.error(range_of(x), fmt::format("{} must be a pointer to the elements (f32*, …), got {}", what(),
                                                    describe_value_type(t, program_.structs)));
              break;
            }
            if (element && *element != t.s) {
              auto& d = diags_.error(range_of(x), fmt::format("the buffers of '{}' have different element types ({} and "
                                                              "{})", info.name, ir::to_string(*element),
                                                              ir::to_string(t.s)));
              d.note(range_of(*first_buffer), "the first buffer is here");
              break;
            }
            ir::index_allocation_reads(graph_, graph_.allocation_reads);  // up to the buffer's expression
            if (graph_.reads_allocation(e)) {
              diags_.error(range_of(x), fmt::format("{} cannot be memory made by 'alloc': NCCL's work is captured "
                                                    "before the graph's allocation exists; allocate it outside the graph",
                                                    what()));
              break;
            }
            element = t.s;
            first_buffer = &x;
            auto converted = exprs_.convert(e, ir::type::void_pointer(send), ir::check::any, range_of(x), what);
            if (converted.expr != bad_expr) slots[send ? ir::slot_send : ir::slot_recv] = converted;
            break;
          }
          case 'n':
            slots[ir::slot_count] = exprs_.convert(exprs_.lower(x), u64_type, ir::check::any, range_of(x), what);
            break;
          case 'p':
            slots[ir::slot_peer] = exprs_.convert(exprs_.lower(x), ir::type::of(ir::scalar::i32), ir::check::any,
                                                  range_of(x), what);
            break;
          case 'c':
            slots[ir::slot_comm] = exprs_.convert(exprs_.lower(x), ir::type::comm(), ir::check::any, range_of(x), what);
            break;
          case 'o': call.reduction = lower_reduction(x, info); break;
        }
      }
      if (element) {
        if (!nccl_type(*element))
          diags_.error(range_of(*first_buffer), fmt::format("NCCL has no element type for '{}' (it takes i8, u8, i32, "
                                                            "u32, i64, u64, f16, bf16, f32 and f64)",
                                                            ir::to_string(*element)));
        call.element = *element;
      }
    }
    for (const ir::argument& a : slots) add_arg(n, a);
    graph_.collectives.push_back(call);
  }

  // The reduction argument: one of the words of dsl::reductions, written bare.
  dsl::reduction lower_reduction(const ast::expression& x, const dsl::collective_info& info) {
    const auto* id = !x.tail && !x.first.prefix
                         ? boost::get<ast::identifier>(&x.first.value)
                         : nullptr;
    if (auto r = id ? dsl::reduction_from_name(id->name) : std::nullopt) return *r;
    diags_.error(range_of(x), fmt::format("the reduction of '{}' is one of sum, prod, max, min and avg", info.name));
    return dsl::reduction::sum;
  }

  static bool nccl_type(ir::scalar s) {
    return s != ir::scalar::i16 && s != ir::scalar::u16 && s != ir::scalar::boolean;
  }

  static std::string_view role_name(char role) {
    switch (role) {
      case 's': return "send buffer";
      case 'r': return "receive buffer";
      case 'n': return "element count";
      case 'o': return "reduction";
      case 'p': return "root or peer rank";
      default: return "communicator";
    }
  }
  static std::string role_names(std::string_view roles) {
    std::string out;
    for (char r : roles) out += (out.empty() ? "" : ", ") + std::string(role_name(r));
    return out;
  }

  // Each grid dimension known when compiling must be a multiple of the cluster's.
  void check_cluster(const ir::node& n, const ir::node_attributes& at, const ast::attribute& a) {
    if (n.launch == ir::none) return;  // not a launch: reported as such where the attribute is applied
    for (std::size_t k = 0; k < 3; ++k) {
      if (at.cluster[k].expr == ir::none || at.cluster[k].expr == bad_expr) return;
      auto grid = exprs_.constant_integer(graph_.launch_of(n).grid[k].expr);
      auto cluster = exprs_.constant_integer(at.cluster[k].expr);
      if (grid && cluster && *cluster > 0 && *grid % *cluster != 0)
        diags_.error(range_of(a), fmt::format("grid dimension {} ({}) is not a multiple of the cluster's ({})", "xyz"[k],
                                              *grid, *cluster));
    }
  }

  ir::node make_node(ir::node_kind kind, const ast::tagged& stmt) {
    ir::node n;
    n.kind = kind;
    n.range = range_of(stmt);
    return n;
  }

  // ---- `after` edges ---------------------------------------------------------------------

  struct after_edge {
    std::uint32_t from;  // the node that waits
    std::uint32_t to;    // the labeled node
    const ast::after_label* name;
  };

  void resolve_afters(body_context& ctx) {
    warn_implied_afters(ctx);
    std::vector<after_edge> edges;
    // Statement order makes every other dependency point back to an earlier node, so only an
    // `after` naming a later label can close a cycle; without one the walk is skipped.
    bool forward = false;
    for (const auto& p : ctx.afters) {
      auto it = ctx.labels.find(p.name.name);
      if (it == ctx.labels.end()) {
        // An iteration hands an `after` on to the body it is part of (the label may be outside
        // the loop), unless the name is the iteration's own, in one of its conditionals' bodies.
        const auto visible = labels_.find(p.name.name);
        const bool own = label_scope_ != 0 && visible != labels_.end() && visible->second.scope == label_scope_;
        if (ctx.enclosing && !own) ctx.enclosing->afters.push_back(p);
        else unresolved_.push_back({p.name, label_scope_});
        continue;
      }
      ir::node& n = ctx.body->nodes[p.node];
      if (it->second == p.node) {
        diags_.error(range_of(p.name), fmt::format("node '{}' cannot run after itself", p.name.name));
        continue;
      }
      const auto deps = graph_.deps(n);
      if (std::find(deps.begin(), deps.end(), it->second) == deps.end()) add_dep(n, it->second);
      if (p.name.port != ast::edge_port::full) add_port_edge(ctx, p, it->second);
      edges.push_back({p.node, it->second, &p.name});
      forward = forward || it->second > p.node;
    }
    if (forward) check_cycles(*ctx.body, edges);
  }

  // A programmatic edge joins two kernel nodes (CUDA's ports are a kernel's).
  void add_port_edge(body_context& ctx, const pending_after& p, std::uint32_t from) {
    ir::node& n = ctx.body->nodes[p.node];
    const ir::node& source = ctx.body->nodes[from];
    const char* what = p.name.port == ast::edge_port::programmatic ? "programmatic" : "launched";
    for (const ir::node* end : {&source, static_cast<const ir::node*>(&n)})
      if (end->kind != ir::node_kind::kernel) {
        diags_.error(range_of(p.name), fmt::format("'{}({})' joins kernel nodes only; {} is a {} node", what,
                                                    p.name.name, end == &n ? "this statement" : fmt::format("'{}'", p.name.name),
                                                    ir::to_string(end->kind)));
        return;
      }
    if (n.ports == ir::none) {
      n.ports = static_cast<std::uint32_t>(graph_.port_edges.size());
      graph_.port_edges.emplace_back();
    }
    graph_.port_edges[n.ports].push_back(
        {from, p.name.port == ast::edge_port::programmatic ? ir::edge_port::programmatic : ir::edge_port::launched});
  }

  // §13 rule 10: an `after` naming a node that the statement order already runs before this
  // one adds nothing. Checked before this body's `after` edges are added, so the warning holds
  // for the order alone. The direct dependencies are looked at first; a longer way back is a
  // walk, and the walks of one body share a budget linear in its nodes (a file of 100 000
  // `after`s naming its first statement would cost 10^10 steps): once it is spent, only the
  // direct dependencies are checked.
  void warn_implied_afters(const body_context& ctx) {
    if (repeated_iteration_) return;
    std::size_t budget = implied_walk_budget_per_node * ctx.body->nodes.size() + implied_walk_budget_base;
    for (const auto& p : ctx.afters) {
      auto it = ctx.labels.find(p.name.name);
      if (it == ctx.labels.end() || p.name.port != ast::edge_port::full) continue;  // a port edge is not implied
      // Each iteration of a `for` hands its `after` on a label outside the loop to this body:
      // one warning for the statement, however many iterations it stands for.
      if (implied_by_order(*ctx.body, p.node, it->second, budget) && implied_warned_.insert(p.name.begin).second)
        diags_.warning(range_of(p.name), fmt::format("'after {}' is implied: the statement already follows '{}'",
                                                    p.name.name, p.name.name));
    }
  }

  static constexpr std::size_t implied_walk_budget_per_node = 16;
  static constexpr std::size_t implied_walk_budget_base = 4096;

  // Whether node `from` already waits, directly or through others, for the earlier node `to`.
  // Statement order makes every dependency point back to an earlier node (an iteration's own
  // `after`s stay inside its run of nodes, which holds none of this body's labels), so nodes
  // before `to` cannot lead to it and the walk skips them. The direct dependencies are looked
  // at even when the budget is spent.
  bool implied_by_order(const ir::body& body, std::uint32_t from, std::uint32_t to, std::size_t& budget) {
    const auto direct = graph_.deps(body.nodes[from]);
    if (std::find(direct.begin(), direct.end(), to) != direct.end()) return true;
    return to < from && reaches(body, from, to, to, budget);
  }

  // A node left out of the dependency order lies on or behind a cycle, which only `after` can close.
  void check_cycles(const ir::body& body, const std::vector<after_edge>& edges) {
    std::vector<bool> done(body.nodes.size(), false);
    for (auto i : dependency_order(graph_, body)) done[i] = true;
    for (const auto& e : edges)
      if (std::size_t unbounded = SIZE_MAX; !done[e.from] && !done[e.to] && reaches(body, e.to, e.from, 0, unbounded)) {
        diags_.error(range_of(*e.name),
                     fmt::format("'after {}' closes a dependency cycle", e.name->name));
        return;
      }
  }

  // Whether `from` transitively depends on `to` (from waits for … waits for to), `from` and
  // `to` being different nodes. Nodes below `floor` are not followed; each node the walk takes
  // costs a step of `budget`, and a walk that runs out of it answers no.
  bool reaches(const ir::body& body, std::uint32_t from, std::uint32_t to, std::uint32_t floor, std::size_t& budget) {
    if (walk_seen_.size() < body.nodes.size()) walk_seen_.resize(body.nodes.size(), 0);
    if (++walk_mark_ == 0) {  // the marks wrapped: clear the old ones
      std::fill(walk_seen_.begin(), walk_seen_.end(), 0);
      walk_mark_ = 1;
    }
    walk_stack_.clear();
    walk_stack_.push_back(from);
    while (!walk_stack_.empty()) {
      if (budget == 0) return false;
      --budget;
      const auto i = walk_stack_.back();
      walk_stack_.pop_back();
      for (auto d : graph_.deps(body.nodes[i])) {
        if (d == to) return true;
        if (d < floor || walk_seen_[d] == walk_mark_) continue;
        walk_seen_[d] = walk_mark_;
        walk_stack_.push_back(d);
      }
    }
    return false;
  }

  // The end of the labels of the `for` iteration being lowered (label_scope_), which go back
  // to `outer`: an `after` written in the iteration that names one of them lies in another body
  // of it (a conditional's); the others may name a label further out. Then the labels that the
  // iteration's own shadowed come back (its entries of `shadowed_labels_`, those after `mark`).
  void end_iteration_labels(std::uint32_t outer, std::size_t mark) {
    std::erase_if(unresolved_, [&](unresolved_after& u) {
      if (u.scope != label_scope_) return false;
      const auto it = labels_.find(u.name.name);
      if (it != labels_.end() && it->second.scope == label_scope_) {
        report_label_in_other_body(u.name);
        return true;
      }
      u.scope = outer;
      return false;
    });
    while (shadowed_labels_.size() > mark) {
      auto& [name, before] = shadowed_labels_.back();
      const auto it = labels_.find(name);
      iteration_labels_.try_emplace(name, it->second.range);
      if (before) it->second = *before;
      else labels_.erase(it);
      shadowed_labels_.pop_back();
    }
    label_scope_ = outer;
  }

  void report_label_in_other_body(const ast::after_label& name) {
    diags_.error(range_of(name), fmt::format("label '{}' is in another graph body; 'after' cannot cross into or "
                                              "out of a conditional body",
                                              name.name));
  }

  void report_unresolved_afters() {
    // A `for` body's `after` is unresolved once per iteration: reported once.
    std::sort(unresolved_.begin(), unresolved_.end(),
              [](const auto& x, const auto& y) { return x.name.begin < y.name.begin; });
    unresolved_.erase(std::unique(unresolved_.begin(), unresolved_.end(),
                                  [](const auto& x, const auto& y) { return x.name.begin == y.name.begin; }),
                      unresolved_.end());
    for (const unresolved_after& u : unresolved_) {
      const ast::after_label& name = u.name;
      if (labels_.count(name.name)) {
        report_label_in_other_body(name);
      } else if (const auto in_for = iteration_labels_.find(name.name); in_for != iteration_labels_.end()) {
        auto& d = diags_.error(range_of(name), fmt::format("label '{}' is not visible here: it is declared in a 'for' "
                                                            "body, whose labels are visible only inside their iteration",
                                                            name.name));
        d.note(in_for->second, fmt::format("'{}' is declared here", name.name));
      } else {
        diags_.error(range_of(name), fmt::format("no label '{}' in graph '{}'{}", name.name, graph_.name,
                                                  dsl::did_you_mean(name.name, labels_ | cgraph::detail::views::keys)));
      }
    }
  }

  // ---- node statements ---------------------------------------------------------------------

  // Converts call arguments to the parameters of `callee` ("kernel 'k'"); `required` is how
  // many parameters have no default.
  void lower_arguments(ir::node& n, const ast::list<ast::expression>& args, const std::vector<ir::parameter>& params,
                       std::size_t required, const ast::identifier& name, std::string_view what) {
    if (args.size() < required || args.size() > params.size()) {
      std::string expected = required == params.size() ? fmt::format("{}", params.size())
                                                       : fmt::format("{} to {}", required, params.size());
      diags_.error(range_of(name), fmt::format("{} '{}' expects {} argument{}, got {}", what, name.name, expected,
                                               params.size() == 1 && required == 1 ? "" : "s", args.size()));
      return;
    }
    for (std::size_t i = 0; i < args.size(); ++i) {
      std::uint32_t e = exprs_.lower(args[i]);
      add_arg(n, exprs_.convert(e, params[i].t, ir::check::any, range_of(args[i]),
                                      [&] {
                                        return fmt::format("argument {} ('{}') of {} '{}'", i + 1, params[i].name,
                                                           what, name.name);
                                      }));
    }
  }

  // Looks up a top-level name expected to be of kind `want`; reports and returns nullopt if not.
  std::optional<std::uint32_t> find_global(const ast::identifier& name, global_symbol::kind want) {
    auto it = globals_.find(name.name);
    if (it == globals_.end()) {
      diags_.error(range_of(name), fmt::format("unknown {} '{}'{}", describe(want).substr(describe(want).find(' ') + 1),
                                               name.name,
                                               dsl::did_you_mean(name.name, names_of(globals_, want))));
      return std::nullopt;
    }
    if (it->second.k != want) {
      auto& d = diags_.error(range_of(name), fmt::format("'{}' is {}, not {}", name.name, describe(it->second.k),
                                                         describe(want)));
      d.note(it->second.range, fmt::format("'{}' is declared here", name.name));
      return std::nullopt;
    }
    return it->second.index;
  }

  void lower_dims(std::array<ir::launch_value, 3>& out, const ast::list<ast::expression>& dims, std::string_view what) {
    static constexpr const char* axis[] = {"x", "y", "z"};
    for (std::size_t i = 0; i < 3; ++i) {
      if (i >= dims.size()) {
        out[i] = {launch_default(graph_.launch_one, 1), {}};
        continue;
      }
      std::uint32_t e = exprs_.lower(dims[i]);
      out[i] = launch_value(exprs_.convert(e, ir::launch_config::value_type, ir::launch_config::dimension_check,
                                           range_of(dims[i]), [&] { return fmt::format("{} dimension {}", what, axis[i]); }));
    }
  }

  // The graph's constant `value` of a launch slot not written (graph::launch_one or launch_zero),
  // made the first time a launch needs it: a launch leaves four or five slots unwritten, and
  // the same constant was looked up in the shared table for each.
  std::uint32_t launch_default(std::uint32_t& slot, std::int64_t value) {
    if (slot == ir::none) slot = exprs_.constant(ir::value::integer(value), ir::type::of(ir::scalar::i64), {});
    return slot;
  }

  // What a launch configuration keeps of a converted argument: its type and check are the slot's.
  static ir::launch_value launch_value(const ir::argument& a) { return {a.expr, a.range}; }

  frontier lower_launch(const ast::launch_stmt& s, const frontier& in) {
    ir::node n = make_node(ir::node_kind::kernel, s);
    ir::launch_config launch;
    lower_dims(launch.grid, s.grid, "grid");
    lower_dims(launch.block, s.block, "block");
    if (s.shared_bytes) {
      const ast::expression& bytes = s.shared_bytes->get();
      std::uint32_t e = exprs_.lower(bytes);
      launch.shared_bytes = launch_value(
          exprs_.convert(e, ir::launch_config::value_type, ir::check::any, range_of(bytes), "dynamic shared memory bytes"));
    } else {
      launch.shared_bytes = {launch_default(graph_.launch_zero, 0), {}};
    }
    check_launch_limits(launch, s);
    add_launch(n, launch, s);
    if (auto k = find_global(s.kernel, global_symbol::kind::kernel)) {
      n.callee = *k;
      const auto& params = program_.kernels[*k].params;
      lower_arguments(n, s.args, params, params.size(), s.kernel, "kernel");
    }
    return add_node(std::move(n), in, s.prefix, s.after);
  }

  // Keeps the values `s` wrote of `launch` (ir::launch_record); launch_of gives back the rest.
  void add_launch(ir::node& n, const ir::launch_config& launch, const ast::launch_stmt& s) {
    ir::launch_record r;
    r.first = static_cast<std::uint32_t>(graph_.launch_values.size());
    r.grid = static_cast<std::uint8_t>(std::min<std::size_t>(s.grid.size(), 3));
    r.block = static_cast<std::uint8_t>(std::min<std::size_t>(s.block.size(), 3));
    r.shared = static_cast<bool>(s.shared_bytes);
    for (std::size_t i = 0; i < r.grid; ++i) graph_.launch_values.push_back(launch.grid[i]);
    for (std::size_t i = 0; i < r.block; ++i) graph_.launch_values.push_back(launch.block[i]);
    if (r.shared) graph_.launch_values.push_back(launch.shared_bytes);
    n.launch = static_cast<std::uint32_t>(graph_.launches.size());
    graph_.launches.push_back(r);
  }

  // Rule 7 where the values are constants; the others are checked at build and update.
  void check_launch_limits(const ir::launch_config& n, const ast::launch_stmt& s) {
    using ir::launch_limit;
    using ir::launch_limits;
    auto value = [&](const ir::launch_value& v) { return exprs_.constant_integer(v.expr); };
    auto where = [&](const ast::list<ast::expression>& dims, std::size_t i) {
      return i < dims.size() ? range_of(dims[i]) : range_of(s.kernel);
    };
    std::optional<std::int64_t> threads = 1;
    bool axis_too_large = false;  // then the block's total is not reported: it says nothing new
    for (int i = 0; i < 3; ++i) {
      auto b = value(n.block[i]);
      if (b && *b > launch_limits::block[i]) {
        axis_too_large = true;
        diags_.error(where(s.block, i), ir::launch_limit_message(launch_limit::block, i, *b));
      }
      // Each factor is at most 1024 here, so the product cannot overflow.
      threads = b && threads && !axis_too_large ? std::optional<std::int64_t>(*threads * *b) : std::nullopt;
      auto g = value(n.grid[i]);
      if (g && *g > launch_limits::grid[i]) diags_.error(where(s.grid, i), ir::launch_limit_message(launch_limit::grid, i, *g));
    }
    if (threads && *threads > launch_limits::threads_per_block && !s.block.empty())
      diags_.error(range_of(s.block.front()), ir::launch_limit_message(launch_limit::threads, 0, *threads));
    if (auto bytes = value(n.shared_bytes); bytes && *bytes > launch_limits::shared_bytes && s.shared_bytes)
      diags_.error(range_of(s.shared_bytes->get()), ir::launch_limit_message(launch_limit::shared_bytes, 0, *bytes));
  }

  frontier lower_builtin(const ast::builtin_stmt& s, const frontier& in) {
    bool is_memcpy = s.keyword.op == ast::builtin_op::memcpy_op;
    const char* name = is_memcpy ? "memcpy" : "memset";
    ir::node n = make_node(is_memcpy ? ir::node_kind::memcpy : ir::node_kind::memset, s);
    source_range keyword = range_of(s.keyword);
    if (s.args.size() != 3) {
      diags_.error(keyword, fmt::format("{} expects 3 arguments ({}), got {}", name,
                                        is_memcpy ? "destination, source, bytes" : "destination, value, count",
                                        s.args.size()));
      return add_node(std::move(n), in, s.prefix, s.after);
    }
    std::uint32_t dst = exprs_.lower(s.args[0]);
    std::uint32_t second = exprs_.lower(s.args[1]);
    std::uint32_t third = exprs_.lower(s.args[2]);
    // A destination is written, so it is never a pointer to const (§9); a source may be.
    auto pointer_arg = [&](std::uint32_t e, const ast::expression& x, const char* role, bool to_const) {
      if (e != bad_expr && !exprs_.at(e).result.is_pointer()) {
        diags_.error(range_of(x), fmt::format("the {} of {} must be a pointer, got {}", role, name,
                                              describe_value_type(exprs_.at(e).result, program_.structs)));
        return ir::argument{bad_expr, ir::type::void_pointer(to_const), ir::check::any, 0, range_of(x)};
      }
      return exprs_.convert(e, ir::type::void_pointer(to_const), ir::check::any, range_of(x),
                            [&] { return fmt::format("the {} of {}", role, name); });
    };
    add_arg(n, pointer_arg(dst, s.args[0], "destination", false));
    if (is_memcpy) {
      add_arg(n, pointer_arg(second, s.args[1], "source", true));
      add_arg(n, exprs_.convert(third, u64_type, ir::check::positive, range_of(s.args[2]), "the byte count of memcpy"));
    } else {
      // The element type comes from the destination: 1, 2 or 4 bytes; void* means bytes. A
      // struct has no value to write, so a `P*` sets bytes: COUNT structs of a byte VALUE each.
      const ir::type destination = dst != bad_expr ? exprs_.at(dst).result : ir::type::void_pointer();
      ir::type element = ir::type::of(destination.k == ir::type::kind::pointer ? destination.s : ir::scalar::u8);
      n.element_size = static_cast<std::uint8_t>(ir::size_of(element));
      auto value = exprs_.convert(second, element, ir::check::any, range_of(s.args[1]), [&] {
        return destination.k == ir::type::kind::struct_pointer
                   ? fmt::format("the value of memset (a byte of each '{}')", ir::to_string(destination, program_.structs))
                   : fmt::format("the value of memset (element type '{}')", ir::to_string(element));
      });
      auto count = exprs_.convert(third, u64_type, ir::check::positive, range_of(s.args[2]), "the element count of memset");
      // From the destination as written: its converted argument is bad where it is refused (a
      // pointer to const), and the element size still needs its check.
      if (n.element_size == 8 && dst != bad_expr) split_wide_memset(n, destination, value, count, s);
      if (destination.k == ir::type::kind::struct_pointer && count.expr != bad_expr)
        count.expr = scaled(count.expr, ir::element_size(destination, program_.structs), count.range);
      add_arg(n, value);
      add_arg(n, count);
    }
    return add_node(std::move(n), in, s.prefix, s.after);
  }

  // CUDA's memset nodes write 1-, 2- or 4-byte elements. An 8-byte element whose value is a
  // constant of two equal 4-byte halves (zero in particular) is the same bytes as twice as
  // many 4-byte elements of one half, so it becomes that (§9); any other is an error saying why.
  void split_wide_memset(ir::node& n, ir::type destination, ir::argument& value, ir::argument& count,
                         const ast::builtin_stmt& s) {
    const std::string pointer = ir::to_string(destination);
    if (value.expr == bad_expr) return;
    if (!exprs_.at(value.expr).is_constant()) {
      diags_.error(range_of(s.args[1]),
                   fmt::format("memset of 8-byte elements ('{}') needs a constant value: CUDA writes elements of at most "
                               "4 bytes, so the value must be two equal 4-byte halves (0 is)", pointer));
      return;
    }
    std::uint64_t bits = ir::convert(exprs_.at(value.expr).constant(), value.target).as_u64();
    auto low = static_cast<std::uint32_t>(bits), high = static_cast<std::uint32_t>(bits >> 32);
    if (low != high) {
      diags_.error(range_of(s.args[1]),
                   fmt::format("memset of 8-byte elements ('{}'): the value's bytes 0x{:016x} are not two equal 4-byte "
                               "halves, and CUDA writes elements of at most 4 bytes (0 works; otherwise use a kernel)",
                               pointer, bits));
      return;
    }
    n.element_size = 4;
    const ir::type integer = ir::type::of(ir::scalar::i64);
    value = {exprs_.constant(ir::value::integer(low), integer, value.range), u32_type, ir::check::any, 0, value.range};
    if (count.expr != bad_expr) count.expr = scaled(count.expr, 2, count.range);
  }

  // `count` × `factor`, checked for overflow like any product.
  std::uint32_t scaled(std::uint32_t count, std::uint32_t factor, source_range range) {
    std::uint32_t f = exprs_.constant(ir::value::integer(factor), ir::type::of(ir::scalar::i64), range);
    return exprs_.binary(dsl::binary_op::mul, count, f, range);
  }

  frontier lower_host(const ast::host_stmt& s, const frontier& in) {
    ir::node n = make_node(ir::node_kind::host, s);
    if (current_->conditional)
      diags_.error(range_of(s.callback), "host callbacks are not allowed inside a conditional body (CUDA does not "
                                         "allow host nodes there)");
    if (auto h = find_global(s.callback, global_symbol::kind::host)) {
      n.callee = *h;
      const auto& params = program_.hosts[*h].params;
      lower_arguments(n, s.args, params, params.size(), s.callback, "host callback");
    }
    graph_.root_only |= ir::root_only_host;
    return add_node(std::move(n), in, s.prefix, s.after);
  }

  // `record E;` / `wait E;`: E is an `event` graph parameter; not in a conditional body (§13 rule 9).
  frontier lower_event(const ast::event_stmt& s, const frontier& in) {
    ir::node n = make_node(s.wait ? ir::node_kind::event_wait : ir::node_kind::event_record, s);
    const char* what = s.wait ? "wait" : "record";
    if (current_->conditional)
      diags_.error(range_of(s), fmt::format("'{}' is not allowed inside a conditional body (CUDA does not allow event "
                                            "nodes there)", what));
    std::uint32_t e = exprs_.lower_identifier(s.event);
    if (e != bad_expr)
      add_arg(n, exprs_.convert(e, ir::type::event(), ir::check::any, range_of(s.event),
                                      [&] { return fmt::format("the event of '{}'", what); }));
    graph_.root_only |= ir::root_only_event;
    return add_node(std::move(n), in, s.prefix, s.after);
  }

  // ---- graph memory (§11) -----------------------------------------------------------------

  // `alloc NAME: T[COUNT];`: NAME is a T* from here to the end of its block, freed (unless
  // `free` came first) by a node after every node of the body that follows the alloc.
  frontier lower_alloc(const ast::alloc_stmt& s, const frontier& in) {
    ir::node n = make_node(ir::node_kind::mem_alloc, s);
    if (current_->conditional)
      diags_.error(range_of(s), "'alloc' is not allowed inside a conditional body (CUDA does not allow memory nodes there)");
    auto t = resolve_type(s.element, diags_, globals_, program_.structs);
    if (t && t->k != ir::type::kind::scalar && !t->is_struct()) {
      diags_.error(range_of(s.element), fmt::format("'alloc' allocates elements of a scalar type (f32, i32, …) or a "
                                                    "struct, not of '{}'; allocate bytes as u8 for anything else",
                                                    ir::to_string(*t, program_.structs)));
      t.reset();
    }
    std::uint32_t count = exprs_.lower(s.count);
    if (t && count != bad_expr) {
      std::uint32_t bytes = scaled(count, ir::size_of(*t), range_of(s.count));
      if (bytes != bad_expr)
        add_arg(n, exprs_.convert(bytes, ir::type::of(ir::scalar::u64), ir::check::positive, range_of(s.count),
                                        [&] { return fmt::format("the byte count of alloc '{}'", s.name.name); }));
    }
    const auto index = static_cast<std::uint32_t>(graph_.allocations.size());
    n.callee = index;
    graph_.allocations.push_back({std::string(s.name.name), t.value_or(ir::type::of(ir::scalar::u8)), range_of(s.name), {}});
    allocation_nodes_.push_back(static_cast<std::uint32_t>(current_->body->nodes.size()));
    graph_.root_only |= ir::root_only_memory;
    frontier out = add_node(std::move(n), in, s.prefix, s.after);
    declare(s.name, symbol{symbol::kind::alloc, 0, index, range_of(s.name)});
    return out;
  }

  // `free NAME;`: after what the statement order gives, and after every node that followed the
  // alloc (so every use of NAME is done).
  frontier lower_free(const ast::free_stmt& s, const frontier& in) {
    ir::node n = make_node(ir::node_kind::mem_free, s);
    const symbol* sym = scope_.find(s.name.name);
    if (!sym || sym->k != symbol::kind::alloc) {
      diags_.error(range_of(s.name), fmt::format("'{}' is not a name made by 'alloc' in scope here", s.name.name));
      return in;
    }
    ir::allocation& a = graph_.allocations[sym->index];
    if (a.freed_at.end > a.freed_at.begin) {
      auto& d = diags_.error(range_of(s.name), fmt::format("'{}' is freed twice", s.name.name));
      d.note(a.freed_at, "first freed here");
      return in;
    }
    a.freed_at = range_of(s);
    n.callee = sym->index;
    frontier deps = in;
    for (std::uint32_t d : sinks_after(*current_->body, allocation_nodes_[sym->index]))
      if (std::find(deps.begin(), deps.end(), d) == deps.end()) deps.push_back(d);
    return add_node(std::move(n), deps, s.prefix, s.after);
  }

  // The nodes of `b` from `first` on that no node from `first` on depends on (body_sinks).
  std::vector<std::uint32_t> sinks_after(const ir::body& b, std::uint32_t first) const {
    std::vector<std::uint32_t> out;
    body_sinks(graph_, b, first).from(first, out);  // a pass over the nodes from `first` only
    return out;
  }

  // The free nodes of the allocations not freed explicitly, at the end of the graph's body, each
  // after the sinks of the nodes from its allocation on. One body_sinks answers them all.
  void free_at_end(ir::body& body) {
    auto freed_by_hand = [](const ir::allocation& a) { return a.freed_at.end > a.freed_at.begin; };
    if (std::all_of(graph_.allocations.begin(), graph_.allocations.end(), freed_by_hand)) return;  // nothing to free: no pass
    const body_sinks index(graph_, body);
    std::vector<ir::node> frees;
    std::vector<std::uint32_t> sinks;
    for (std::uint32_t i = 0; i < graph_.allocations.size(); ++i) {
      const ir::allocation& a = graph_.allocations[i];
      if (freed_by_hand(a)) continue;
      ir::node n;
      n.kind = ir::node_kind::mem_free;
      n.range = a.range;
      n.callee = i;
      index.from(allocation_nodes_[i], sinks);
      set_deps(n, sinks);
      frees.push_back(std::move(n));
    }
    for (auto& n : frees) {
      body.nodes.push_back(std::move(n));
      ++graph_.node_count;
    }
  }

  frontier lower_call(const ast::call_stmt& s, const frontier& in) {
    ir::node n = make_node(ir::node_kind::child_graph, s);
    if (auto g = find_global(s.graph, global_symbol::kind::graph)) {
      n.callee = *g;
      ctx_.calls.push_back({index_, *g, range_of(s.graph), current_->conditional});
      const ast::graph_decl& callee = *ctx_.graph_decls[*g];
      std::vector<ir::parameter> params;
      std::size_t required = 0;
      for (const auto& p : callee.params) {
        auto t = resolve_type_quietly(p.type, globals_, program_.structs);
        params.push_back({std::string(p.name.name), t.value_or(unresolved_parameter_type), ir::none, range_of(p)});
        if (!p.default_value) required = params.size();
      }
      lower_arguments(n, s.args, params, required, s.graph, "graph");
      for (const auto& a : graph_.args(n))
        if (a.expr < graph_.exprs.size() && graph_.exprs[a.expr].op == ir::op::cond_ref)
          conds_[graph_.exprs[a.expr].index].passed.push_back(a.range);
    }
    return add_node(std::move(n), in, s.prefix, s.after);
  }

  static std::optional<ir::type> resolve_type_quietly(const ast::type_name& t, const global_table& globals,
                                                     std::span<const ir::structure> structs) {
    diagnostics ignored;  // the callee's own lowering reports its bad types
    return resolve_type(t, ignored, globals, structs);
  }

  // ---- names -------------------------------------------------------------------------------

  frontier lower_let(const ast::let_stmt& s, const frontier& in) {
    expr_lowering::unshared own(exprs_);
    std::uint32_t e = exprs_.lower(s.value);
    if (e != bad_expr && exprs_.at(e).result.k == ir::type::kind::cond) {
      diags_.error(range_of(s.value), "a cond cannot be bound with 'let'; use the cond's own name");
      e = bad_expr;
    }
    symbol sym{symbol::kind::let, e, ir::none, range_of(s.name)};
    if (e != bad_expr && !exprs_.at(e).is_constant()) {
      // Named so the IR and generated code show `blocks`, not its expression, at every use.
      sym.index = static_cast<std::uint32_t>(graph_.lets.size());
      graph_.lets.push_back({std::string(s.name.name), e, range_of(s.name)});
      ir::expr ref;
      ref.op = ir::op::let_ref;
      ref.result = exprs_.at(e).result;
      ref.a = e;
      ref.index = sym.index;
      ref.range = range_of(s.name);
      graph_.exprs.push_back(ref);
      sym.expr = static_cast<std::uint32_t>(graph_.exprs.size() - 1);
    }
    declare(s.name, sym);
    return in;
  }

  frontier lower_cond(const ast::cond_stmt& s, const frontier& in) {
    ir::cond_handle c{std::string(s.name.name), ir::none, false, range_of(s.name)};
    if (s.init) {
      expr_lowering::unshared own(exprs_);
      std::uint32_t e = exprs_.lower(*s.init);
      c.default_expr = exprs_.convert(e, u32_type, ir::check::any, range_of(*s.init),
                                      [&] { return fmt::format("the initial value of cond '{}'", s.name.name); }).expr;
      if (c.default_expr == bad_expr) c.default_expr = ir::none;
    }
    auto index = static_cast<std::uint32_t>(graph_.conds.size());
    graph_.conds.push_back(std::move(c));
    conds_.push_back({current_->id, 0, {}, false, {}});
    declare(s.name, symbol{symbol::kind::cond, 0, index, range_of(s.name)});
    return in;
  }

  // The cond a conditional statement tests: declared in this very body, used by nothing else.
  // `chain_home`: for the `if` of an `else if`, the body that holds the first `if` of the chain,
  // where its cond may also be declared (LANGUAGE.md §11).
  std::uint32_t use_cond(const ast::identifier& name, std::string_view statement, std::uint32_t chain_home = ir::none) {
    const symbol* s = scope_.find(name.name);
    if (!s || s->k != symbol::kind::cond) {
      if (!s && !globals_.count(name.name))
      {
        if (auto near = dsl::closest(name.name, scope_.names([](const symbol& x) { return x.k == symbol::kind::cond; })))
          diags_.error(range_of(name), fmt::format("use of undeclared cond '{}'; did you mean '{}'?", name.name, *near));
        else
          diags_.error(range_of(name), fmt::format("use of undeclared cond '{}'; declare it with 'cond {};' before the "
                                                   "'{}'", name.name, name.name, statement));
      }
      else if (s && s->k == symbol::kind::param && graph_.params[s->index].t.k == ir::type::kind::cond) {
        auto& d = diags_.error(range_of(name), fmt::format("cond parameter '{}' cannot drive a '{}' here; its "
                                                           "conditional node belongs to the graph that declares it",
                                                           name.name, statement));
        d.note(s->declared_at, "CUDA ties a handle to the graph that made it: a called graph's kernels "
                                           "may set it, but only that graph may test it");
      } else
        diags_.error(range_of(name), fmt::format("'{}' is not a cond; '{}' needs a name declared with 'cond'",
                                                 name.name, statement));
      return ir::none;
    }
    cond_info& info = conds_[s->index];
    if (info.body_id != current_->id && info.body_id != chain_home) {
      ++info.uses;  // misplaced, not unused: one error is enough
      auto& d = diags_.error(range_of(name), fmt::format("cond '{}' is declared in another graph body; declare it in "
                                                         "the body that holds this '{}'", name.name, statement));
      d.note(s->declared_at, "declared here");
      return ir::none;
    }
    if (info.uses++ > 0) {
      auto& d = diags_.error(range_of(name), fmt::format("cond '{}' is already used by another conditional; each "
                                                         "cond drives exactly one if, while or switch", name.name));
      d.note(info.first_use, "first used here");
      return ir::none;
    }
    info.first_use = range_of(name);
    info.else_if = info.body_id != current_->id;  // the one use it may have: an `else if` elsewhere
    return s->index;
  }

  // ---- conditionals --------------------------------------------------------------------------

  // `if A { … } else if B { … }` is an if/else whose else body holds `if B`; B is declared
  // beside A, and its handle belongs to the else body's graph (explicit_plan::late_readers).
  frontier lower_if(const ast::if_stmt& s, const frontier& in) {
    std::uint32_t chain_home = std::exchange(else_if_home_, ir::none);
    ir::node n = make_node(ir::node_kind::conditional, s);
    n.cond_kind = s.else_body ? ir::cond_kind::if_else : ir::cond_kind::if_then;
    n.cond = use_cond(s.condition, "if", chain_home);
    bodies_list bodies;
    bodies.push_back(lower_body(s.then_body, true));
    if (s.else_body) {
      if (s.else_body->else_if) else_if_home_ = chain_home != ir::none ? chain_home : current_->id;
      bodies.push_back(lower_body(*s.else_body, true));
    }
    set_bodies(n, bodies);
    return add_node(std::move(n), in, s.prefix, s.after);
  }

  frontier lower_while(const ast::while_stmt& s, const frontier& in) {
    ir::node n = make_node(ir::node_kind::conditional, s);
    n.cond_kind = ir::cond_kind::while_loop;
    n.cond = use_cond(s.condition, "while");
    bodies_list bodies;
    bodies.push_back(lower_body(s.body, true));
    if (bodies[0].nodes.empty())
      diags_.error(range_of(s.body), "empty 'while' body: nothing in it could ever clear the condition");
    set_bodies(n, bodies);
    return add_node(std::move(n), in, s.prefix, s.after);
  }

  frontier lower_switch(const ast::switch_stmt& s, const frontier& in) {
    ir::node n = make_node(ir::node_kind::conditional, s);
    n.cond_kind = ir::cond_kind::switch_cases;
    n.cond = use_cond(s.condition, "switch");
    if (s.cases.empty()) diags_.error(range_of(s.condition), "a switch needs at least one case");
    std::unordered_map<std::int64_t, source_range> seen;
    bodies_list bodies;
    for (const auto& c : s.cases) {
      std::uint32_t e = exprs_.lower(c.value);
      auto v = exprs_.constant_integer(e);
      ir::body body = lower_body(c.body, true);
      if (e == bad_expr) continue;
      if (!v) {
        diags_.error(range_of(c.value), "a case value must be a constant integer");
        continue;
      }
      if (*v < 0 || *v > limits_.max_switch_case) {
        diags_.error(range_of(c.value), fmt::format("case value {} is outside 0..{}", *v, limits_.max_switch_case));
        continue;
      }
      auto [it, inserted] = seen.try_emplace(*v, range_of(c.value));
      if (!inserted) {
        auto& d = diags_.error(range_of(c.value), fmt::format("duplicate case value {}", *v));
        d.note(it->second, "previous case is here");
        continue;
      }
      if (bodies.size() <= static_cast<std::size_t>(*v)) bodies.resize(static_cast<std::size_t>(*v) + 1);
      bodies[static_cast<std::size_t>(*v)] = std::move(body);
    }
    set_bodies(n, bodies);
    return add_node(std::move(n), in, s.prefix, s.after);
  }

  frontier lower_repeat(const ast::repeat_stmt& s, const frontier& in) {
    ir::node n = make_node(ir::node_kind::conditional, s);
    n.cond_kind = ir::cond_kind::while_loop;
    n.from_repeat = true;
    std::uint32_t count = exprs_.lower(s.count);
    ir::argument count_arg = exprs_.convert(count, u32_type, ir::check::positive, range_of(s.count), "the repeat count");
    add_arg(n, count_arg);
    // A hidden cond, opened by an init node before the loop (a launch-time default would not
    // reopen a repeat nested in another loop) and closed by the counter node at the end of the
    // body after the last iteration.
    n.cond = static_cast<std::uint32_t>(graph_.conds.size());
    graph_.conds.push_back({fmt::format("repeat#{}", repeat_count_++), ir::none, true, range_of(s)});
    conds_.push_back({current_->id, 1, range_of(s), false, {}});
    ir::body body = lower_body(s.body, true);
    ir::node counter = make_node(ir::node_kind::repeat_counter, s);
    counter.cond = n.cond;
    add_arg(counter, count_arg);
    set_deps(counter, sinks_after(body, 0));  // every sink of the body
    body.nodes.push_back(std::move(counter));
    ++graph_.node_count;
    bodies_list bodies;
    bodies.push_back(std::move(body));
    set_bodies(n, bodies);
    // The statement's `after` edges go to the init node, where it starts; its label names the
    // loop, where it ends.
    ir::node init = make_node(ir::node_kind::repeat_init, s);
    init.cond = n.cond;
    if (!s.prefix.attributes().empty())
      diags_.error(range_of(s.prefix.attributes().front()), "attributes apply to kernel, memcpy and memset nodes, not to 'repeat'");
    frontier started = add_node(std::move(init), in, nullptr, {&s.prefix.after(), &s.after});
    return add_node(std::move(n), started, s.prefix.label(), {});
  }

  // `for I in A..B { … }` (LANGUAGE.md §11): unrolled while lowering, I a constant in each
  // iteration, which has labels of its own. One after another, or (`parallel for`) each
  // iteration a branch of a parallel.
  frontier lower_for(const ast::for_stmt& s, const frontier& in) {
    auto bound = [&](const ast::expression& e) -> std::optional<std::int64_t> {
      std::uint32_t x = exprs_.lower(e);
      if (x == bad_expr) return std::nullopt;
      if (auto v = exprs_.constant_integer(x)) return v;
      diags_.error(range_of(e), "the bounds of 'for' must be integer constants (known when compiling)");
      return std::nullopt;
    };
    auto from = bound(s.from), to = bound(s.to);
    if (!from || !to) return in;
    constexpr std::int64_t max_iterations = 65536;
    if (*to - *from > max_iterations) {
      diags_.error({s.from.begin, s.to.end}, fmt::format("'for' repeats {} times, more than the limit of {}",
                                                         *to - *from, max_iterations));
      return in;
    }
    frontier out = in, joined;
    bool any_moved = false;
    // The second and later iterations repeat the first one's warnings, and its errors: the
    // first error ends the unrolling.
    const bool outer_repeated = repeated_iteration_;
    for (std::int64_t i = *from; i < *to; ++i) {
      repeated_iteration_ = outer_repeated || i != *from;
      const std::size_t errors_before = diags_.error_count();
      if (++unrolled_ > limits_.max_nodes) {
        diags_.error(range_of(s.variable), fmt::format("'for' loops unroll to more than {} iterations in graph '{}'",
                                                       limits_.max_nodes, graph_.name));
        return out;
      }
      body_context iteration{current_->body, current_->id, current_->conditional, {}, {}, current_};
      body_context* outer = current_;
      current_ = &iteration;
      const std::uint32_t outer_labels = label_scope_;
      const std::size_t shadowed_before = shadowed_labels_.size();
      label_scope_ = ++label_scopes_;
      scope_.push();
      std::uint32_t value = exprs_.constant(ir::value::integer(i), ir::type::of(ir::scalar::i64), range_of(s.variable));
      declare(s.variable, symbol{symbol::kind::let, value, 0, range_of(s.variable)});
      (void)scope_.find(s.variable.name);  // a loop variable left unused is no warning
      frontier start = s.parallel ? in : out;
      frontier end = lower_block(s.body, start);
      pop_scope();
      resolve_afters(iteration);
      end_iteration_labels(outer_labels, shadowed_before);
      current_ = outer;
      if (!s.parallel) {
        out = std::move(end);
      } else if (end != start) {
        any_moved = true;
        joined.insert(joined.end(), end.begin(), end.end());
      }
      if (diags_.error_count() != errors_before) break;
    }
    repeated_iteration_ = outer_repeated;
    if (!s.parallel) return out;
    if (!any_moved) return in;
    std::sort(joined.begin(), joined.end());
    joined.erase(std::unique(joined.begin(), joined.end()), joined.end());
    return joined;
  }

  frontier lower_parallel(const ast::parallel_stmt& s, const frontier& in) {
    // A branch that makes no node (a `let`, an empty block) ends where it started: waiting for
    // it adds nothing once another branch made a node, so only branches that moved count.
    frontier joined;
    bool any_moved = false;
    scope_.push();
    for (const auto& branch : s.branches.statements) {
      // Its memory is visible to the branches after it, which start with it, not after it: any
      // use of it there would run unordered with the allocation.
      if (const auto* a = boost::get<ast::x3::forward_ast<ast::alloc_stmt>>(&branch))
        diags_.error(range_of(a->get()), "an 'alloc' is not a branch of 'parallel' by itself: the other branches "
                                         "start with it, not after it, so none of them may use its memory; allocate "
                                         "before the 'parallel', or in a '{ … }' branch with the statements that use it");
      frontier out = lower_statement(branch, in);
      if (out == in) continue;
      any_moved = true;
      joined.insert(joined.end(), out.begin(), out.end());
    }
    pop_scope();
    if (!any_moved) return in;
    std::sort(joined.begin(), joined.end());
    joined.erase(std::unique(joined.begin(), joined.end()), joined.end());
    return joined;
  }

  const program_context& ctx_;
  const ast::graph_decl& decl_;
  std::uint32_t index_;
  ir::program& program_;
  ir::graph& graph_;
  const global_table& globals_;
  diagnostics& diags_;
  const compile_limits& limits_;
  scope_stack scope_;
  expr_lowering exprs_;
  body_context* current_ = nullptr;
  std::uint32_t next_body_id_ = 0;
  std::uint32_t repeat_count_ = 0;
  std::uint32_t else_if_home_ = ir::none;  // set while the else body of an `else if` is lowered
  std::vector<std::uint32_t> allocation_nodes_;  // by allocation: its node's index in the root body
  std::uint64_t unrolled_ = 0;  // `for` iterations so far (a cap on nested loops)
  bool repeated_iteration_ = false;  // lowering a `for` body again: its warnings are out already
  // The labels in scope: the graph's, and those of the `for` iterations being lowered, which
  // shadow the graph's of the same name until the iteration ends (end_iteration_labels).
  std::unordered_map<std::string_view, label_info> labels_;
  std::vector<std::pair<std::string_view, std::optional<label_info>>> shadowed_labels_;  // what they replaced
  std::unordered_map<std::string_view, source_range> iteration_labels_;  // labels of `for` bodies, for messages
  std::uint32_t label_scope_ = 0;   // the `for` iteration being lowered (label_info::scope), 0 outside
  std::uint32_t label_scopes_ = 0;  // iterations so far
  std::vector<unresolved_after> unresolved_;
  std::vector<cond_info> conds_;
  std::vector<std::uint32_t> walk_seen_;   // reaches' marks, by node: walk_mark_ when seen
  std::vector<std::uint32_t> walk_stack_;
  std::uint32_t walk_mark_ = 0;
  std::unordered_set<std::uint32_t> implied_warned_;  // where an implied `after` was warned about
  ir::argument device_block_;            // the device of the innermost `on device` block, or none
  source_range device_block_range_;
  static constexpr unsigned form_cache_bits = 5;
  std::array<std::uint32_t, 1u << form_cache_bits> form_cache_{};  // form_of's table: arg_forms indices
};

}  // namespace

void lower_graph(const program_context& ctx, std::uint32_t index) { graph_lowering(ctx, index).run(); }

}  // namespace cgraph::compiler::detail
