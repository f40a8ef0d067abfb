// The values of nodes: what a build or an update computes before it calls CUDA, so a bad value
// is reported before anything changes. A program works out once, per graph, what is the same on
// every build (graph_templates); a build then evaluates and converts only what its parameters
// reach. That was most of a build's host work beyond CUDA's own calls (docs/performance.md).

#include "built_graph.hpp"

#include <cgraph/compiler/printers.hpp>
#include <cgraph/runtime/error.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <memory>
#include <tuple>

#include <fmt/format.h>

namespace cgraph::detail {

namespace {

// The part that launch slot `i` (ir::launch_config: 0-2 grid, 3-5 block, 6 shared bytes) fills.
value_part launch_part(std::size_t i) {
  using k = value_part::kind;
  const auto index = static_cast<std::uint32_t>(i);
  return i < 3 ? value_part{k::grid, index} : i < 6 ? value_part{k::block, index - 3} : value_part{k::shared, 0};
}

void set_dim(dim3& d, std::uint32_t i, std::uint64_t v) { (i == 0 ? d.x : i == 1 ? d.y : d.z) = static_cast<unsigned>(v); }

// Calls f(value_part) for every part of node `n`'s values, in the order they are filled (and
// their errors reported): launch dimensions, attributes, arguments. `written_only` leaves out
// the launch dimensions and shared bytes the launch did not write: their defaults, 1 and 0,
// always convert, to what value_filler::reset starts with (`k<<<b, 256>>>` writes two of seven).
template <bool written_only = false, typename F>
void for_each_part(const ir::graph& g, const ir::node& n, F&& f) {
  using k = value_part::kind;
  if (n.kind == ir::node_kind::kernel) {
    const auto slot = [&](std::size_t i) { f(launch_part(i)); };
    if constexpr (written_only) {
      g.for_each_written_slot(n, slot);
    } else {
      for (std::size_t i = 0; i < ir::launch_config::slots; ++i) slot(i);
    }
  }
  if (n.kind == ir::node_kind::conditional) return;
  if (n.attributes != ir::none) {
    const ir::node_attributes& at = g.attributes[n.attributes];
    if (at.enabled.expr != ir::none) f(value_part{k::enabled, 0});
    if (at.device.expr != ir::none) f(value_part{k::device, 0});
  }
  for (std::uint32_t i = 0; i < n.args_count; ++i) f(value_part{k::argument, i});
}

// Whether a part (its argument `a`) is the same on every build: its expression reads no
// parameter and no handle or address made while the graph is built (a cond, an allocation's,
// through any operand), and it evaluated (in `pool`, the constants) without failing.
bool constant_part(const ir::graph& g, const ir::layered_pool& pool, const graph_dependencies& deps,
                   const ir::argument& a) {
  if (a.expr >= g.exprs.size() || !deps.exprs.expr_params[a.expr].empty() || g.reads_allocation(a.expr))
    return false;
  return g.exprs[a.expr].op != ir::op::cond_ref && !ir::is_failure(pool[a.expr]);
}

// The bytes of a node's struct arguments, which node_values keeps in struct_bytes.
std::size_t struct_argument_bytes(const ir::graph& g, const ir::node& n) {
  std::size_t size = 0;
  for (const auto& a : g.args(n)) size += a.target.is_struct() ? a.target.bytes() : 0;
  return size;
}

// The conversions of constant parts while a graph's templates are made, by expression, target
// type and check: a launch's dimensions are nearly always a few constants (1, 32, 256), one
// expression each once value numbering shared them, converted once a graph here instead of once
// a part (docs/performance.md, runs 36 and 41). Keyed by the expression, not its value: a
// constant expression has one value, so a hit needs three compares and no value read, and a
// float's conversion is as safe to keep as an integer's. Direct-mapped: a miss converts.
class constant_conversions {
public:
  // Converts constant part `a` (its value in `pool`) into `c`, from the table when it is there;
  // false, and nothing kept, when it does not convert (value_filler::convert words why).
  bool convert(const ir::layered_pool& pool, const ir::argument& a, ir::converted_bytes& c) {
    if (const ir::converted_bytes* known = find(a)) {
      c = *known;
      return true;
    }
    if (ir::convert_to(pool[a.expr], a.target, a.check, c) != ir::convert_problem::fits) return false;
    keep(a, c);
    return true;
  }

private:
  const ir::converted_bytes* find(const ir::argument& a) const {
    const entry& e = table_[slot(a)];
    return e.expr == a.expr && e.type == bits_of(a.target) && e.c == a.check ? &e.bytes : nullptr;
  }
  void keep(const ir::argument& a, const ir::converted_bytes& bytes) {
    table_[slot(a)] = {a.expr, a.check, bits_of(a.target), bytes};
  }

  struct entry {
    std::uint32_t expr = ir::none;  // none: unused (no argument's expression is none here)
    ir::check c = ir::check::any;
    std::uint64_t type = 0;
    ir::converted_bytes bytes;
  };
  static std::uint64_t bits_of(ir::type t) {
    static_assert(sizeof(ir::type) == sizeof(std::uint64_t), "a type is 8 bytes, all of them its value");
    std::uint64_t b = 0;
    std::memcpy(&b, &t, sizeof b);
    return b;
  }
  static std::size_t slot(const ir::argument& a) {
    const std::uint64_t h = (a.expr * 0x9E3779B97F4A7C15ull) ^ bits_of(a.target) ^ static_cast<std::uint64_t>(a.check);
    return static_cast<std::size_t>((h ^ (h >> 29)) % entries);
  }
  static constexpr std::size_t entries = 64;
  std::array<entry, entries> table_{};
};

// Fills the parts of one node's values from an evaluated pool.
class value_filler {
public:
  // `state`: the graph being built, whose cond handles and allocations arguments may name; null
  // for a template, which holds no such part.
  // `constants`: where a template's constant parts keep their conversions (null for a build).
  value_filler(const program_state& p, const ir::graph& g, const ir::node& n, const ir::layered_pool& pool,
               const backend::graph_state* state, node_values& out, constant_conversions* constants = nullptr)
      : p_(p), g_(g), n_(n), pool_(pool), state_(state), out_(out), constants_(constants) {}

  // Clears `out` for this node: a node that is not a kernel must not keep another node's launch
  // dimensions or attributes (an update reuses one buffer for several nodes), or it compares as
  // changed.
  void reset() {
    out_.args.clear();
    out_.values.clear();
    out_.struct_bytes.clear();
    out_.grid = dim3(1, 1, 1);
    out_.block = dim3(1, 1, 1);
    out_.shared_bytes = 0;
    out_.enabled = -1;
    out_.device = -1;
  }

  ir::argument argument(value_part part) const { return part_argument(g_, n_, part); }

  // constant_part, in this filler's pool.
  bool constant(const ir::argument& a, const graph_dependencies& deps) const { return constant_part(g_, pool_, deps, a); }

  // Converts a part into `out` (an argument's place in `out.args` must exist).
  void fill(value_part part) { fill(part, argument(part)); }

  // Converts part `part`, whose expression `a` is, into `out`; with a memo, through memo slot
  // `slot` (dynamic_part::memo): converted there by the first part that needs it, copied after.
  void fill(value_part part, const ir::argument& a, conversion_memo* memo = nullptr, std::uint32_t slot = ir::none) {
    using k = value_part::kind;
    ir::converted_bytes number;  // a launch dimension's, the shared bytes' or an attribute's
    ir::converted_bytes& c = part.k == k::argument ? out_.args[part.index] : number;
    if (memo && slot != ir::none && memo->known(slot)) {
      c = memo->bytes(slot);
    } else {
      convert(a, part, c);
      if (memo && slot != ir::none) memo->keep(slot, c);
    }
    switch (part.k) {
      case k::grid: set_dim(out_.grid, part.index, c.as_u64()); return;
      case k::block: set_dim(out_.block, part.index, c.as_u64()); return;
      case k::shared: out_.shared_bytes = static_cast<unsigned>(c.as_u64()); return;
      case k::enabled: out_.enabled = static_cast<std::int8_t>(c.as_u64() != 0); return;
      case k::device: {
        const std::uint64_t device = c.as_u64();
        if (device > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
          fail(a, 0, "the device", {}, fmt::format("{} is not a device number", device));
        out_.device = static_cast<int>(device);
        return;
      }
      case k::argument: return;
    }
  }

  // A host or child-graph node's (or a captured routine's) arguments as values of their types,
  // after every argument was converted.
  void fill_values() {
    const ir::argument_list args = g_.args(n_);
    for (std::size_t i = 0; i < args.size(); ++i) {
      const ir::argument a = args[i];
      ir::value v = value_of(a);
      if (a.target.is_float() && v.k == ir::value::kind::integer) v = ir::value::floating(static_cast<double>(v.i));
      if (a.target.is_struct()) v = ir::value::structure(out_.struct_bytes.data() + out_.args[i].as_u64(), a.target.bytes());
      out_.values.push_back(v);
    }
  }

  // Reserves the struct arguments' bytes: the values point into them.
  void reserve_struct_bytes() { out_.struct_bytes.reserve(struct_argument_bytes(g_, n_)); }

private:
  // What a part is called in its errors; null for an argument, which describe_argument names.
  static const char* part_name(value_part part) {
    static constexpr const char* grid_parts[] = {"grid dimension x", "grid dimension y", "grid dimension z"};
    static constexpr const char* block_parts[] = {"block dimension x", "block dimension y", "block dimension z"};
    using k = value_part::kind;
    switch (part.k) {
      case k::grid: return grid_parts[part.index];
      case k::block: return block_parts[part.index];
      case k::shared: return "dynamic shared memory bytes";
      case k::enabled: return "attribute 'enabled'";
      case k::device: return "the device";
      case k::argument: break;
    }
    return nullptr;
  }

  ir::value value_of(const ir::argument& a) const {
    const ir::expr& e = g_.exprs[a.expr];
    // A handle made while the graph is built: read where it is kept. An allocation's address is
    // in the pool (resolve_allocations), with what reads it.
    if (e.op == ir::op::cond_ref) return ir::value::cond(state_->conds[e.index]);
    if (ir::is_failure(pool_[a.expr])) fail_at(p_, ir::failure_of(g_, pool_, pool_[a.expr]));
    return pool_[a.expr];
  }

  [[noreturn]] void fail(const ir::argument& a, std::size_t i, const char* part, source_range at, const std::string& error) const {
    source_range r = at.end > at.begin ? at : a.range.end > a.range.begin ? a.range : n_.range;
    throw build_error(p_.source.position(r.begin),
                      fmt::format("{}: {}", part ? std::string(part) : describe_argument(p_.program, n_, i), error));
  }

  // Converts a part into `c`. A struct's bytes go to struct_bytes (reserved first): its
  // converted value is their offset. Anything else converts without a message
  // (ir::convert_to); ir::convert words a problem, and only then is the part named.
  void convert(const ir::argument& a, value_part part, ir::converted_bytes& c) {
    if (a.target.is_struct()) {
      c.size = a.target.bytes();
      c.indirect = true;
      const std::uint64_t offset = out_.struct_bytes.size();
      std::memcpy(c.bytes.data(), &offset, sizeof offset);
      out_.struct_bytes.resize(offset + a.target.bytes());
      if (auto error = ir::store_struct(g_, pool_, value_of(a), a.target, out_.struct_bytes.data() + offset))
        fail(a, part.index, part_name(part), error->range, error->message);
      return;
    }
    if (constants_ && constants_->convert(pool_, a, c)) return;  // a template's constant part
    const ir::value& v = value_of(a);
    if (ir::convert_to(v, a.target, a.check, c) != ir::convert_problem::fits)
      fail(a, part.index, part_name(part), {}, ir::convert(v, a.target, a.check).error);
  }

  const program_state& p_;
  const ir::graph& g_;
  const ir::node& n_;
  const ir::layered_pool& pool_;
  const backend::graph_state* state_;
  node_values& out_;
  constant_conversions* constants_;
};

// Numbers the conversions that dynamic parts make, one slot per (expression, target type,
// check), so every part converting the same thing shares a conversion_memo slot.
class memo_numbering {
public:
  std::uint32_t slot_of(const ir::graph& g, const ir::argument& a) {
    if (a.expr >= g.exprs.size() || a.target.is_struct()) return ir::none;
    const ir::op op = g.exprs[a.expr].op;
    if (op == ir::op::cond_ref || op == ir::op::alloc_ref) return ir::none;  // made while building
    static_assert(sizeof(ir::type) == sizeof(std::uint64_t), "a type is 8 bytes, all of them its value");
    std::uint64_t type = 0;
    std::memcpy(&type, &a.target, sizeof type);
    auto [it, added] = slots_.try_emplace(std::tuple(a.expr, type, a.check), static_cast<std::uint32_t>(slots_.size()));
    return it->second;
  }
  std::uint32_t size() const { return static_cast<std::uint32_t>(slots_.size()); }

private:
  std::map<std::tuple<std::uint32_t, std::uint64_t, ir::check>, std::uint32_t> slots_;
};

// Whether a node's values can come from a template: not when they are also kept as values (host
// and child-graph nodes), nor with struct arguments, whose bytes are kept beside them.
bool templatable(const ir::graph& g, const ir::node& n) {
  if (n.kind == ir::node_kind::host || n.kind == ir::node_kind::child_graph) return false;
  for (const auto& a : g.args(n))
    if (a.target.is_struct()) return false;
  return true;
}

// The template of kernel node `n` without attributes (nearly every node of a large graph) into
// `t`, its arguments' slice of `out.arguments` and `out.dynamic`: read straight from its launch
// record and argument list. The same parts, in the same order, with the same rule as the general
// path below, which asks part_argument for each part and fills a node_values to copy from, and
// cost a text -> graph build about 300 instructions a node more (docs/performance.md, run 42).
// False when a constant part does not convert: the caller then leaves the template unusable.
bool fill_kernel_template(const ir::graph& g, const ir::node& n, const ir::layered_pool& constants,
                          const graph_dependencies& deps, memo_numbering& memo_slots,
                          constant_conversions& conversions, value_template& t, graph_templates& out) {
  bool converts = true;
  dim3 grid{1, 1, 1}, block{1, 1, 1};
  unsigned shared_bytes = 0;
  g.for_each_written_slot(n, [&](std::size_t i) {
    const ir::argument a = g.launch_argument(n, i);
    ir::converted_bytes c;
    if (!constant_part(g, constants, deps, a)) {
      out.dynamic.push_back({launch_part(i), memo_slots.slot_of(g, a), a});
    } else if (!converts || !conversions.convert(constants, a, c)) {
      converts = false;
    } else if (i < 6) {
      set_dim(i < 3 ? grid : block, static_cast<std::uint32_t>(i % 3), c.as_u64());
    } else {
      shared_bytes = static_cast<unsigned>(c.as_u64());
    }
  });
  if (!converts) return false;
  const ir::argument_list args = g.args(n);
  ir::converted_bytes* converted = out.arguments.data() + t.arguments.first;
  for (std::uint32_t i = 0; i < args.size(); ++i) {
    const ir::argument a = args[i];
    if (!constant_part(g, constants, deps, a)) {
      out.dynamic.push_back({value_part{value_part::kind::argument, i}, memo_slots.slot_of(g, a), a});
    } else if (!conversions.convert(constants, a, converted[i])) {
      std::fill_n(converted, args.size(), ir::converted_bytes{});  // an unusable template's are zero
      return false;
    }
  }
  t.grid = grid;
  t.block = block;
  t.shared_bytes = shared_bytes;
  return true;
}

// Appends the template of node `n` of graph `index`, from the pool of constants, to `out`: its
// constants, its arguments (zero where dynamic) and its dynamic parts. A constant part whose
// conversion fails leaves the template unusable: every build then computes the node in full
// and reports it where it always did. (A constant expression that failed to evaluate is left
// dynamic, and reported by the build that converts it.)
// `memo_slots` numbers the (expression, type, check) conversions of the graph's dynamic parts
// (dynamic_part::memo).
// `fixed` and `conversions` are the caller's, reused for every node of the graph: a node's
// values were a vector made and freed per node.
void add_template(const program_state& p, std::uint32_t index, const ir::node& n, const ir::layered_pool& constants,
                  memo_numbering& memo_slots, node_values& fixed, constant_conversions& conversions,
                  graph_templates& out) {
  value_template& t = out.steps.emplace_back();
  const std::uint32_t count = n.args_count;
  t.arguments = {static_cast<std::uint32_t>(out.arguments.size()), count};
  t.dynamic.first = static_cast<std::uint32_t>(out.dynamic.size());
  out.arguments.resize(out.arguments.size() + count);  // zero until a usable template fills them
  const ir::graph& g = p.program.graphs[index];
  if (!templatable(g, n)) return;
  const graph_dependencies& deps = p.dependencies[index];
  if (n.kind == ir::node_kind::kernel && n.attributes == ir::none) {
    if (!fill_kernel_template(g, n, constants, deps, memo_slots, conversions, t, out)) {
      out.dynamic.resize(t.dynamic.first);
      return;
    }
  } else {
    value_filler filler(p, g, n, constants, nullptr, fixed, &conversions);
    filler.reset();
    fixed.args.resize(count);
    try {
      for_each_part<true>(g, n, [&](value_part part) {
        const ir::argument a = filler.argument(part);
        if (filler.constant(a, deps)) filler.fill(part, a);
        else out.dynamic.push_back({part, memo_slots.slot_of(g, a), a});
      });
    } catch (const build_error&) {
      out.dynamic.resize(t.dynamic.first);
      return;
    }
    t.grid = fixed.grid;
    t.block = fixed.block;
    t.shared_bytes = fixed.shared_bytes;
    t.enabled = fixed.enabled;
    t.device = fixed.device;
    std::copy(fixed.args.begin(), fixed.args.end(), out.arguments.begin() + t.arguments.first);
  }
  t.dynamic.count = static_cast<std::uint32_t>(out.dynamic.size()) - t.dynamic.first;
  t.usable = true;
  t.launch_in_place = std::all_of(out.dynamic.begin() + t.dynamic.first, out.dynamic.end(), [](const dynamic_part& d) {
    return d.part.k == value_part::kind::argument && d.memo != ir::none;
  });
}

}  // namespace

ir::argument part_argument(const ir::graph& g, const ir::node& n, value_part part) {
  using k = value_part::kind;
  switch (part.k) {
    case k::grid: return g.launch_argument(n, part.index);
    case k::block: return g.launch_argument(n, 3 + part.index);
    case k::shared: return g.launch_argument(n, 6);
    case k::enabled: return g.attributes[n.attributes].enabled;
    case k::device: return g.attributes[n.attributes].device;
    case k::argument: break;
  }
  return g.args(n)[part.index];
}

const graph_templates& program_state::templates(std::uint32_t index) const {
  return templates_.get(index, plans.size(), [&] { return make_templates(index); });
}

std::unique_ptr<graph_templates> program_state::make_templates(std::uint32_t index) const {
  auto t = std::make_unique<graph_templates>();
  const ir::graph& g = program.graphs[index];
  const graph_dependencies& deps = dependencies[index];
  // Evaluated as ir::evaluate does, leaving out every expression that reads a parameter or an
  // allocation's address (each build's own, in its pool's slots).
  t->constants.resize(g.exprs.size());
  t->slot.assign(g.exprs.size(), ir::none);
  for (std::uint32_t i = 0; i < g.exprs.size(); ++i) {
    if (deps.exprs.expr_params[i].empty() && !g.reads_allocation(i)) {
      // A literal is its own value (most of a graph's expressions: a launch's dimensions and
      // constant arguments); evaluating it through the evaluator's call cost about 100
      // instructions each.
      if (g.exprs[i].is_constant()) t->constants[i] = g.exprs[i].constant();
      else ir::evaluate_expression(g, i, t->constants);
    } else {
      t->slot[i] = static_cast<std::uint32_t>(t->param_exprs.size());
      t->param_exprs.push_back(i);
    }
  }
  // Templates read constant parts only: the slots' values are never looked at.
  const ir::layered_pool constants(t->constants, t->slot, t->param_exprs.size());
  t->steps.reserve(plans[index].steps.size());
  t->arguments.reserve(g.arg_pool.size());  // every step's arguments are the graph's, once each
  memo_numbering memo_slots;
  node_values fixed;
  auto conversions = std::make_unique<constant_conversions>();  // 4 KB: not on the stack
  for (const auto& s : plans[index].steps) {
    add_template(*this, index, *s.node, constants, memo_slots, fixed, *conversions, *t);
  }
  t->memo_slots = memo_slots.size();
  t->argument_pointers.reserve(t->arguments.size());
  // The driver only reads through kernelParams: the pointers are non-const for its type alone.
  for (ir::converted_bytes& a : t->arguments) t->argument_pointers.push_back(a.bytes.data());
  const plan::explicit_plan& plan = plans[index];
  std::vector<bool> kernel_seen(program.kernels.size(), false);
  for (std::uint32_t i = 0; i < plan.steps.size(); ++i) {
    const ir::node& n = *plan.steps[i].node;
    const bool first_of_kernel = n.kind == ir::node_kind::kernel && !kernel_seen[n.callee];
    if (first_of_kernel) kernel_seen[n.callee] = true;
    if (first_of_kernel || n.kind == ir::node_kind::repeat_init || n.kind == ir::node_kind::collective ||
        n.kind == ir::node_kind::child_graph)
      t->prepared_steps.push_back(i);
  }
  t->rows = step_rows(plan);
  const bool constant_defaults = std::all_of(g.conds.begin(), g.conds.end(), [&](const ir::cond_handle& c) {
    return c.default_expr == ir::none || deps.exprs.expr_params[c.default_expr].empty();
  });
  if (constant_defaults) try {
      t->cond_defaults = cond_defaults(*this, index, constants);
    } catch (const build_error&) {
      // Left to every build, which reports it where it always did.
    }
  return t;
}

ir::layered_pool evaluate_pool(const built_graph& g) {
  const graph_templates& t = *g.templates;
  const ir::graph& ir = g.ir();
  ir::layered_pool pool(t.constants, t.slot, t.param_exprs.size());
  if (auto error = ir::reevaluate(ir, g.params.view(), t.param_exprs, pool)) fail_at(*g.program, *error);
  // A defaulted parameter takes its type's form (an integer default of an f32 parameter is a float).
  for (std::uint32_t i : t.param_exprs)
    if (ir.exprs[i].op == ir::op::param && ir.params[ir.exprs[i].index].t.is_float() &&
        pool[i].k == ir::value::kind::integer)
      pool.own(i) = ir::value::floating(static_cast<double>(pool[i].i));
  return pool;
}

void resolve_allocations(built_graph& g) {
  const graph_dependencies& deps = g.program->dependencies[g.graph_index];
  const ir::graph& ir = g.ir();
  for (std::uint32_t i : deps.allocation_refs)
    g.values.own(i) = ir::value::pointer(reinterpret_cast<std::uint64_t>(g.allocations[ir.exprs[i].index]));
  if (auto error = ir::reevaluate(ir, g.params.view(), deps.allocation_readers, g.values)) fail_at(*g.program, *error);
}

void convert_part(const built_graph& g, std::uint32_t step, const ir::layered_pool& pool, node_values& out,
                  const dynamic_part& d, conversion_memo& memo) {
  value_filler(*g.program, g.ir(), *g.plan().steps[step].node, pool, &g, out).fill(d.part, d.argument, &memo, d.memo);
}

void compute_values_in_full(const built_graph& g, std::uint32_t step, const ir::layered_pool& pool, node_values& out,
                            bool kernel_values) {
  const ir::node& n = *g.plan().steps[step].node;
  value_filler filler(*g.program, g.ir(), n, pool, &g, out);
  filler.reset();
  filler.reserve_struct_bytes();
  out.args.resize(n.args_count);
  for_each_part(g.ir(), n, [&](value_part part) { filler.fill(part); });
  if (n.kind == ir::node_kind::host || n.kind == ir::node_kind::child_graph ||
      (kernel_values && n.kind == ir::node_kind::kernel))
    filler.fill_values();
}

}  // namespace cgraph::detail
