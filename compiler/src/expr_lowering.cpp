#include "lowering.hpp"
#include "ranges.hpp"

#include <cgraph/compiler/eval.hpp>
#include <cgraph/dsl/suggest.hpp>

#include <boost/container/small_vector.hpp>

#include <bit>
#include <cmath>
#include <limits>
#include <span>

#include <fmt/format.h>

namespace cgraph::compiler::detail {

namespace {

using ir::op;

// "min, max and ceil_div": the functions of the operator table, for a message.
std::string function_names() {
  std::vector<std::string_view> names;
  for (const auto& o : dsl::operators)
    if (o.is_function()) names.push_back(o.spelling);
  return cgraph::detail::join(names | cgraph::detail::views::drop_last(1), ", ", [](std::string_view n) { return n; }) +
         " and " + std::string(names.back());
}

constexpr ir::type integer_type = ir::type::of(ir::scalar::i64);
constexpr ir::type float_type = ir::type::of(ir::scalar::f64);

}  // namespace

std::string describe_value_type(ir::type t, std::span<const ir::structure> structs) {
  if (t.is_integer()) return "integer";
  if (t.is_float()) return "float";
  if (t.is_bool()) return "bool";
  if (t.k == ir::type::kind::cond) return "cond";
  if (t.k == ir::type::kind::event) return "event";
  if (t.k == ir::type::kind::comm) return "comm";
  if (t.k == ir::type::kind::null) return "null";
  return "'" + ir::to_string(t, structs) + "'";
}

std::uint32_t expr_lowering::push(const ir::expr& e) {
  graph_.exprs.push_back(e);
  return static_cast<std::uint32_t>(graph_.exprs.size() - 1);
}

namespace {

// Whether expr_lowering::shared may give e an equal expression's index (see lowering.hpp).
// Constants are shared when they are integers up to INT64_MAX, floats, bools or pointers;
// their value is in `a`, `b` and `index` (ir::expr::set_constant), so equal words are equal
// constants (floats by their bits) and one hash and one comparison serve every expression.
[[gnu::always_inline]] inline bool shareable(const ir::expr& e) {
  using kind = ir::value::kind;
  switch (e.op) {
    case op::constant:
      return e.index == static_cast<std::uint32_t>(kind::integer) || e.index == static_cast<std::uint32_t>(kind::floating) ||
             e.index == static_cast<std::uint32_t>(kind::boolean) || e.index == static_cast<std::uint32_t>(kind::pointer);
    case op::param:
    case op::let_ref:
    case op::make_struct: return false;
    default: return true;
  }
}

// The table takes the hash's low bits, and two expressions' words may differ anywhere (a
// float constant's in its high word only, an operation's in its operands' low bits): each word
// is multiplied into 64 bits and the high half kept, which every bit of every word reaches.
[[gnu::always_inline]] inline std::size_t shared_hash(const ir::expr& e) {
  const ir::type t = e.result;
  const std::uint64_t kind = (static_cast<std::uint64_t>(t.shape) << 32) ^ (static_cast<std::uint64_t>(t.k) << 24) ^
                             (static_cast<std::uint64_t>(t.s) << 16) ^ (static_cast<std::uint64_t>(e.op) << 8);
  const std::uint64_t h = e.a * 0x9E3779B97F4A7C15ull ^ e.b * 0xC2B2AE3D27D4EB4Full ^
                          (e.index | (static_cast<std::uint64_t>(e.element_size) << 32)) * 0x165667B19E3779F9ull ^
                          kind * 0xFF51AFD7ED558CCDull;
  return static_cast<std::size_t>(h >> 32);
}

[[gnu::always_inline]] inline bool same_shared(const ir::expr& x, const ir::expr& e) {
  return x.op == e.op && x.result == e.result && x.a == e.a && x.b == e.b && x.index == e.index &&
         x.element_size == e.element_size;
}

}  // namespace

std::uint32_t expr_lowering::constant(ir::value v, ir::type t, source_range range) {
  ir::expr e;
  e.op = op::constant;
  e.result = t;
  e.set_constant(v);
  e.range = range;
  return shareable(e) ? shared(e) : push(e);  // a constant never fails: shared even while deferring
}

std::uint32_t expr_lowering::paste(const constant_literal& literal) {
  std::vector<std::uint32_t> at(literal.exprs.size());  // each expression's index in the pool
  for (std::size_t k = 0; k < literal.exprs.size(); ++k) {
    ir::expr e = literal.exprs[k];
    if (e.op != op::make_struct) {
      at[k] = constant(e.constant(), e.result, e.range);
      continue;
    }
    const auto first = static_cast<std::uint32_t>(graph_.struct_fields.size());
    for (std::uint32_t f = e.a; f < e.a + e.b; ++f) {
      ir::argument field = literal.fields[f];
      field.expr = at[field.expr];
      graph_.struct_fields.push_back(field);
    }
    e.a = first;
    at[k] = push(e);  // as lower_struct_literal adds it
  }
  return at.back();
}

std::uint32_t expr_lowering::intern(const ir::expr& e) {
  return deferring_ == 0 && unshared_ == 0 && shareable(e) ? shared(e) : push(e);
}

std::uint32_t expr_lowering::shared(const ir::expr& e) {
  if (shared_slots_.empty()) shared_slots_.assign(64, ir::none);
  const std::size_t mask = shared_slots_.size() - 1;
  std::size_t at = shared_hash(e) & mask;
  for (; shared_slots_[at] != ir::none; at = (at + 1) & mask)
    if (same_shared(graph_.exprs[shared_slots_[at]], e)) return shared_slots_[at];
  const std::uint32_t index = push(e);
  shared_slots_[at] = index;
  if (++shared_count_ * 2 > shared_slots_.size()) grow_shared_slots();
  return index;
}

void expr_lowering::grow_shared_slots() {
  std::vector<std::uint32_t> old(shared_slots_.size() * 2, ir::none);
  old.swap(shared_slots_);
  const std::size_t mask = shared_slots_.size() - 1;
  for (std::uint32_t index : old) {
    if (index == ir::none) continue;
    std::size_t at = shared_hash(graph_.exprs[index]) & mask;
    while (shared_slots_[at] != ir::none) at = (at + 1) & mask;
    shared_slots_[at] = index;
  }
}

std::uint32_t expr_lowering::add(ir::expr e) {
  // An operand that failed (a conversion of `1.5 + 18446744073709551615`, reported) fails the
  // whole expression. No op stores bad_expr in `a` or `b` for anything but an operand.
  if (e.a == bad_expr || e.b == bad_expr) return bad_expr;
  bool foldable = e.op != op::param && e.op != op::let_ref && e.op != op::cond_ref && e.op != op::alloc_ref &&
                  e.op != op::constant &&
                  graph_.exprs[e.a].is_constant() && (e.b == ir::none || graph_.exprs[e.b].is_constant());
  if (foldable) {
    auto r = ir::apply(e, graph_.exprs[e.a].constant(), e.b == ir::none ? ir::value{} : graph_.exprs[e.b].constant());
    if (r.error.empty()) return constant(r.v, e.result, e.range);
    if (deferring_ == 0) {
      diags_.error(e.range, r.error);
      return bad_expr;
    }
    // An operand that may never be evaluated (`n > 0 && 1 / n > 4`): it fails when it is.
  } else if (deferring_ == 0 && e.b != ir::none && graph_.exprs[e.b].is_constant()) {
    // `n / 0`, `n << 64`: the right operand alone makes every evaluation fail, so the error is
    // the compiler's rather than every build's.
    if (std::string error = ir::always_fails(e, graph_.exprs[e.b].constant()); !error.empty()) {
      diags_.error(e.range, error);
      return bad_expr;
    }
  }
  return intern(e);
}

std::optional<std::int64_t> expr_lowering::constant_integer(std::uint32_t e) const {
  if (e == bad_expr || !graph_.exprs[e].is_constant() || !graph_.exprs[e].result.is_integer()) return std::nullopt;
  return graph_.exprs[e].constant().i;
}

std::uint32_t expr_lowering::lower(const ast::expression& e) {
  // Most expressions are one operand (a name or a literal): no operator stacks for those.
  if (!e.tail) return lower_unary(e.first);
  const ast::list<ast::operation>& rest = e.tail->rest;
  if (rest.size() > limits_.max_operators_per_expression) {
    diags_.error(range_of(e), fmt::format("expression has {} operators, more than the limit of {}", rest.size(),
                                          limits_.max_operators_per_expression));
    return bad_expr;
  }
  // Precedence climbing over the flat operator list (operators are left-associative).
  // Small inline buffers: most expressions have a handful of operands, and a heap allocation
  // per expression was a visible share of the whole front end's time.
  boost::container::small_vector<std::uint32_t, 8> operands{lower_unary(e.first)};
  boost::container::small_vector<const ast::operation*, 8> pending;
  // Operands to the right of a pending `&&` or `||` may not be evaluated: their folding errors
  // wait until they are (see add).
  auto logic_pending = [&] {
    return static_cast<int>(std::count_if(pending.begin(), pending.end(), [](const ast::operation* o) {
      return dsl::info(o->op).operands == dsl::operand_kind::logic;
    }));
  };
  auto reduce = [&] {
    const ast::operation* o = pending.back();
    pending.pop_back();
    std::uint32_t rhs = operands.back();
    operands.pop_back();
    const dsl::operator_info& row = dsl::info(o->op);
    source_range op_range{o->begin, o->begin + static_cast<std::uint32_t>(row.spelling.size())};
    deferral defer(*this, logic_pending());
    operands.back() = binary(row.op, operands.back(), rhs, op_range);
  };
  for (const auto& o : rest) {
    while (!pending.empty() && dsl::info(pending.back()->op).precedence >= dsl::info(o.op).precedence) reduce();
    pending.push_back(&o);
    deferral defer(*this, logic_pending());
    operands.push_back(lower_unary(o.rhs));
  }
  while (!pending.empty()) reduce();
  if (!e.tail->choice) return operands.back();
  return choose(operands.back(), *e.tail->choice);
}

std::uint32_t expr_lowering::choose(std::uint32_t c, const ast::choice& ch) {
  std::uint32_t then, otherwise;
  {
    deferral defer(*this, 1);  // only one branch is evaluated
    then = lower(ch.then);
    otherwise = lower(ch.otherwise);
  }
  if (c == bad_expr || then == bad_expr || otherwise == bad_expr) return bad_expr;
  source_range at{ch.begin, ch.begin + 1};
  ir::type ct = graph_.exprs[c].result, tt = graph_.exprs[then].result, et = graph_.exprs[otherwise].result;
  if (!ct.is_bool() && !ct.is_integer()) {
    diags_.error(at, fmt::format("the condition of '?' must be a bool or an integer, got {}", describe_value_type(ct, structs_)));
    return bad_expr;
  }
  ir::type result = tt;
  auto number = [](ir::type t) { return t.is_integer() || t.is_float(); };
  if (number(tt) && number(et)) {
    if (tt.is_float() || et.is_float()) {
      then = to_float(then);
      otherwise = to_float(otherwise);
      result = float_type;
    } else {
      result = integer_type;
    }
  } else if (tt.is_pointer() && et.is_pointer() && (tt == et || tt.k == ir::type::kind::null || et.k == ir::type::kind::null)) {
    result = tt.k == ir::type::kind::null ? et : tt;
  } else if (!(tt == et && (tt.is_bool() || tt.is_struct()))) {
    diags_.error(at, fmt::format("the branches of '?' have different types ({} and {})", describe_value_type(tt, structs_),
                                 describe_value_type(et, structs_)));
    return bad_expr;
  }
  if (graph_.exprs[c].is_constant()) {  // the branch not taken is never evaluated
    return ir::truth(graph_.exprs[c].constant()) ? then : otherwise;
  }
  ir::expr e;
  e.op = op::select;
  e.result = result;
  e.a = c;
  e.b = then;
  e.index = otherwise;
  e.range = at;
  return intern(e);
}

// The conversion `o` (to_float, to_int) of expression x, folded when x is a constant.
std::uint32_t expr_lowering::converted(std::uint32_t x, op o, ir::type result) {
  ir::expr p;
  p.op = o;
  p.result = result;
  p.a = x;
  p.range = graph_.exprs[x].range;
  return add(p);
}

// Fails (bad_expr, reported) for an integer constant above INT64_MAX, which takes part in no
// arithmetic (LANGUAGE.md §9).
std::uint32_t expr_lowering::to_float(std::uint32_t x) {
  return x == bad_expr || graph_.exprs[x].result.is_float() ? x : converted(x, op::to_float, float_type);
}

std::uint32_t expr_lowering::to_integer(std::uint32_t x) {
  return x == bad_expr || !graph_.exprs[x].result.is_bool() ? x : converted(x, op::to_int, integer_type);
}

std::uint32_t expr_lowering::lower_unary(const ast::unary& u) {
  std::uint32_t v = lower_operand(u.value);
  // The signs apply innermost first. A run of one sign repeats with period two; applying at
  // most three keeps overflow checks exact.
  const std::span<const char> signs = u.prefix ? std::span<const char>(*u.prefix) : std::span<const char>();
  std::size_t end = signs.size();
  while (end > 0 && v != bad_expr) {
    const char sign = signs[end - 1];
    std::size_t begin = end - 1;
    while (begin > 0 && signs[begin - 1] == sign) --begin;
    const std::size_t run = end - begin;
    const std::size_t count = run > 2 ? 2 + run % 2 : run;
    for (std::size_t i = 0; i < count && v != bad_expr; ++i) {
      if (sign == '-') v = to_integer(v);
      ir::type t = graph_.exprs[v].result;
      const bool ok = sign == '-' ? (t.is_integer() || t.is_float()) : (t.is_integer() || t.is_bool());
      if (!ok) {
        diags_.error({u.begin, u.begin + 1}, fmt::format("unary '{}' needs {}, got {}", sign,
                                                         sign == '-' ? "a number" : "a bool or an integer",
                                                         describe_value_type(t, structs_)));
        return bad_expr;
      }
      ir::expr e;
      e.op = sign == '-' ? op::neg : op::logical_not;
      e.result = sign == '-' ? t : ir::type::of(ir::scalar::boolean);
      e.a = v;
      e.range = {u.begin, u.end};
      v = add(e);
    }
    end = begin;
  }
  return v;
}

std::uint32_t expr_lowering::lower_operand(const ast::operand& o) {
  struct visitor {
    expr_lowering& self;
    std::uint32_t operator()(const ast::int_literal& lit) const {
      if (lit.too_large) {
        self.diags_.error(range_of(lit), "integer literal does not fit 64 bits (the largest is 18446744073709551615)");
        return bad_expr;
      }
      // Above INT64_MAX it converts to u64 only, and takes part in no arithmetic (§9).
      return self.constant(ir::value::unsigned_integer(lit.value), integer_type, range_of(lit));
    }
    std::uint32_t operator()(const ast::float_literal& lit) const {
      if (!std::isfinite(lit.value)) {
        self.diags_.error(range_of(lit), "floating-point literal is out of range");
        return bad_expr;
      }
      return self.constant(ir::value::floating(lit.value), float_type, range_of(lit));
    }
    std::uint32_t operator()(const ast::bool_literal& lit) const {
      return self.constant(ir::value::boolean(lit.value), ir::type::of(ir::scalar::boolean), range_of(lit));
    }
    std::uint32_t operator()(const ast::null_literal& lit) const {
      return self.constant(ir::value::pointer(0), ir::type::null(), range_of(lit));
    }
    std::uint32_t operator()(const ast::x3::forward_ast<ast::sizeof_expr>& x) const {
      const ast::sizeof_expr& s = x.get();
      auto t = resolve_type(s.type, self.diags_, self.globals_, self.structs_);
      if (!t) return bad_expr;
      return self.constant(ir::value::integer(ir::size_of(*t)), integer_type, range_of(s));
    }
    std::uint32_t operator()(const ast::x3::forward_ast<ast::function_call>& call) const { return self.lower_call(call.get()); }
    std::uint32_t operator()(const ast::identifier& id) const { return self.lower_identifier(id); }
    std::uint32_t operator()(const ast::parenthesized& p) const { return self.lower(p.inner.get()); }
    std::uint32_t operator()(const ast::x3::forward_ast<ast::struct_literal>& lit) const { return self.lower_struct_literal(lit.get()); }
    std::uint32_t operator()(const ast::x3::forward_ast<ast::field_access>& held) const {
      const ast::field_access& a = held.get();
      std::uint32_t v = self.lower_operand(a.base.get());
      for (const auto& f : a.fields) v = self.lower_field(v, f);
      return v;
    }
  };
  return boost::apply_visitor(visitor{*this}, o);
}

std::uint32_t expr_lowering::freed_allocation_read(std::uint32_t e) {
  if (graph_.allocations.empty() || e >= graph_.exprs.size()) return ir::none;  // most graphs allocate nothing
  ir::index_allocation_reads(graph_, graph_.allocation_reads);
  const std::uint64_t reads = graph_.allocation_reads[e];
  const std::size_t count = graph_.allocations.size();
  for (std::uint32_t bit = 0; bit < 64 && bit < count; ++bit) {
    if (!(reads >> bit & 1)) continue;
    for (std::size_t k = bit; k < count; k += 64) {  // the allocations the bit stands for: one, up to 64
      const ir::allocation& a = graph_.allocations[k];
      if (a.freed_at.end > a.freed_at.begin && (count <= 64 || reads_allocation_exactly(e, static_cast<std::uint32_t>(k))))
        return static_cast<std::uint32_t>(k);
    }
  }
  return ir::none;
}

bool expr_lowering::reads_allocation_exactly(std::uint32_t e, std::uint32_t allocation) const {
  // Each expression once (a let may read the one before twice), only on a use after a free.
  std::vector<std::uint32_t> pending{e};
  std::vector<bool> seen(graph_.exprs.size(), false);
  while (!pending.empty()) {
    const std::uint32_t i = pending.back();
    pending.pop_back();
    if (i >= graph_.exprs.size() || seen[i]) continue;
    seen[i] = true;
    const ir::expr& x = graph_.exprs[i];
    if (x.op == op::alloc_ref && x.index == allocation) return true;
    ir::for_each_operand(graph_, x, [&](std::uint32_t o) { pending.push_back(o); });
  }
  return false;
}

std::uint32_t expr_lowering::lower_identifier(const ast::identifier& id) {
  if (const symbol* s = scope_.find(id.name)) {
    switch (s->k) {
      case symbol::kind::param: return s->expr;
      case symbol::kind::let:
        if (const std::uint32_t freed = freed_allocation_read(s->expr); freed != ir::none) {
          const ir::allocation& a = graph_.allocations[freed];
          auto& d = diags_.error(range_of(id), fmt::format("use of '{}' after '{}', which it reads, is freed", id.name, a.name));
          d.note(a.freed_at, "freed here");
          return bad_expr;
        }
        return s->expr;
      case symbol::kind::cond: {
        ir::expr e;
        e.op = op::cond_ref;
        e.result = ir::type::cond();
        e.index = s->index;
        e.range = range_of(id);
        return intern(e);
      }
      case symbol::kind::alloc: {
        const ir::allocation& a = graph_.allocations[s->index];
        if (a.freed_at.end > a.freed_at.begin) {
          auto& d = diags_.error(range_of(id), fmt::format("use of '{}' after it is freed", id.name));
          d.note(a.freed_at, "freed here");
          return bad_expr;
        }
        ir::expr e;
        e.op = op::alloc_ref;
        e.result = ir::type::pointer_to(a.element);
        e.index = s->index;
        e.range = range_of(id);
        return intern(e);
      }
    }
  }
  if (auto it = globals_.find(id.name); it != globals_.end()) {
    if (it->second.k == global_symbol::kind::constant && constants_) {
      auto c = constants_->resolve(it->second.index, range_of(id));
      if (!c) return bad_expr;
      if (!c->second.is_struct()) return constant(c->first, c->second, range_of(id));
      // A struct constant: its literal, as a lowering of its own would add it here (it reads
      // constants only, so no names).
      scope_stack no_names;
      return expr_lowering(graph_, diags_, no_names, globals_, structs_, limits_, constants_)
          .paste(constants_->literal(it->second.index));
    }
    auto& d = diags_.error(range_of(id), fmt::format("'{}' is {}, not a value", id.name, describe(it->second.k)));
    d.note(it->second.range, fmt::format("'{}' is declared here", id.name));
  } else {
    diags_.error(range_of(id), fmt::format("use of undeclared name '{}'{}", id.name,
                                           dsl::did_you_mean(id.name, scope_.names([](const symbol&) { return true; }),
                                                             names_of(globals_, global_symbol::kind::constant))));
  }
  return bad_expr;
}

std::uint32_t expr_lowering::lower_call(const ast::function_call& call) {
  const std::string_view name = call.function.name;
  auto code = dsl::find_function(name);
  if (!code) {
    diags_.error(range_of(call.function), fmt::format("unknown function '{}'; the functions are {}", name, function_names()));
    return bad_expr;
  }
  if (call.args.size() != 2) {
    diags_.error(range_of(call.function), fmt::format("'{}' takes 2 arguments, got {}", name, call.args.size()));
    return bad_expr;
  }
  std::uint32_t a = lower(call.args[0]);
  std::uint32_t b = lower(call.args[1]);
  return binary(*code, a, b, range_of(call.function));
}

std::uint32_t expr_lowering::binary(dsl::binary_op o, std::uint32_t lhs, std::uint32_t rhs, source_range op_range) {
  if (lhs == bad_expr || rhs == bad_expr) return bad_expr;
  const dsl::operator_info& row = dsl::info(o);
  const std::string_view spelling = row.spelling;
  const op code = ir::to_op(o);
  ir::type l = graph_.exprs[lhs].result, r = graph_.exprs[rhs].result;
  auto invalid = [&](std::string why) {
    diags_.error(op_range, fmt::format("invalid operands to '{}' ({} and {}){}", spelling, describe_value_type(l, structs_),
                                       describe_value_type(r, structs_), why));
    return bad_expr;
  };
  ir::expr e;
  e.range = op_range;
  if (row.operands == dsl::operand_kind::logic) {
    auto truth_value = [](ir::type t) { return t.is_bool() || t.is_integer(); };
    if (!truth_value(l) || !truth_value(r)) return invalid(fmt::format(": '{}' needs bools or integers", spelling));
    const ir::expr& x = graph_.exprs[lhs];
    if (x.is_constant() && ir::truth(x.constant()) == (code == op::logical_or))
      return constant(ir::value::boolean(code == op::logical_or), ir::type::of(ir::scalar::boolean), op_range);
    e.op = code;
    e.a = lhs;
    e.b = rhs;
    e.result = ir::type::of(ir::scalar::boolean);
    return add(e);
  }
  if (row.operands == dsl::operand_kind::compare) {
    const bool equality = code == op::eq || code == op::ne;
    if (l.is_pointer() || r.is_pointer()) {
      if (!l.is_pointer() || !r.is_pointer()) return invalid(": a pointer compares with a pointer only");
      if (!equality) return invalid(": pointers compare with '==' and '!=' only");
      if (l.has_element() && r.has_element() && !ir::type::same_element(l, r))
        return invalid(": the pointers point to different types");
    } else if (!(l.is_bool() && r.is_bool() && equality)) {
      lhs = to_integer(lhs);
      rhs = to_integer(rhs);
      l = graph_.exprs[lhs].result;
      r = graph_.exprs[rhs].result;
      if (!(l.is_integer() || l.is_float()) || !(r.is_integer() || r.is_float())) return invalid("");
      if (l.is_float() || r.is_float()) {
        lhs = to_float(lhs);
        rhs = to_float(rhs);
      }
    }
    e.op = code;
    e.a = lhs;
    e.b = rhs;
    e.result = ir::type::of(ir::scalar::boolean);
    return add(e);
  }
  // A bool is the integer 0 or 1 in arithmetic.
  lhs = to_integer(lhs);
  rhs = to_integer(rhs);
  l = graph_.exprs[lhs].result;
  r = graph_.exprs[rhs].result;
  if (l.is_pointer() || r.is_pointer()) {
    // pointer + integer, integer + pointer, pointer - integer
    bool offset_op = (code == op::add && (l.is_pointer() != r.is_pointer()) && (l.is_integer() || r.is_integer())) ||
                     (code == op::sub && l.is_pointer() && r.is_integer());
    if (!offset_op) return invalid(": a pointer can only be offset by an integer");
    std::uint32_t ptr = l.is_pointer() ? lhs : rhs, count = l.is_pointer() ? rhs : lhs;
    ir::type pt = graph_.exprs[ptr].result;
    if (!pt.has_element())
      return invalid(fmt::format(": '{}' has no element size to offset by", ir::to_string(pt)));
    e.op = code == op::add ? op::ptr_add : op::ptr_sub;
    e.result = pt;
    e.a = ptr;
    e.b = count;
    e.set_element_size(ir::element_size(pt, structs_));
    return add(e);
  }
  bool numbers = (l.is_integer() || l.is_float()) && (r.is_integer() || r.is_float());
  if (!numbers) return invalid("");
  if ((l.is_float() || r.is_float()) && row.integer_only())
    return invalid(fmt::format(": '{}' needs integer operands", spelling));
  e.op = code;
  if (l.is_float() || r.is_float()) {
    e.a = to_float(lhs);
    e.b = to_float(rhs);
    e.result = float_type;
  } else {
    e.a = lhs;
    e.b = rhs;
    e.result = integer_type;
  }
  return add(e);
}

std::uint32_t expr_lowering::lower_struct_literal(const ast::struct_literal& lit) {
  auto it = globals_.find(lit.name.name);
  if (it == globals_.end() || it->second.k != global_symbol::kind::structure) return bad_expr;  // a duplicate, reported
  it->second.used = true;
  const std::uint32_t id = it->second.index;
  const ir::structure& st = structs_[id];
  std::vector<ir::argument> fields(st.fields.size());
  std::vector<source_range> written(st.fields.size());
  bool ok = st.size != 0;  // a struct whose declaration failed is reported there
  for (const auto& init : lit.fields) {
    std::uint32_t f = st.find(init.name.name);
    std::uint32_t e = lower(init.value);
    if (f == ir::none) {
      diags_.error(range_of(init.name), fmt::format("struct '{}' has no field '{}'{}", st.name, init.name.name,
                                                    dsl::did_you_mean(init.name.name, field_names(st))));
      ok = false;
      continue;
    }
    if (written[f].end > written[f].begin) {
      auto& d = diags_.error(range_of(init.name), fmt::format("field '{}' is given twice", init.name.name));
      d.note(written[f], "first given here");
      ok = false;
      continue;
    }
    written[f] = range_of(init.name);
    fields[f] = convert(e, st.fields[f].t, ir::check::any, range_of(init.value),
                        [&] { return fmt::format("field '{}' of struct '{}'", init.name.name, st.name); });
    fields[f].offset = static_cast<std::uint16_t>(st.fields[f].offset);
    ok = ok && fields[f].expr != bad_expr;
  }
  // The missing fields, the first `shown` of them by name: every field of a 2 000-field struct
  // in each of 20 000 literals printed 340 MB.
  constexpr std::size_t shown = 8;
  std::string named;
  std::size_t missing = 0;
  for (std::size_t f = 0; f < st.fields.size(); ++f)
    if (written[f].end == written[f].begin && missing++ < shown)
      named += fmt::format("{}'{}'", named.empty() ? "" : ", ", st.fields[f].name);
  if (missing != 0 && st.size != 0) {
    diags_.error(range_of(lit.name), fmt::format("struct literal '{}' does not give field{} {}{} (every field is given once)",
                                                 st.name, missing == 1 ? "" : "s", named,
                                                 missing > shown ? fmt::format(" and {} more", missing - shown) : ""));
    ok = false;
  }
  if (!ok) return bad_expr;
  ir::expr e;
  e.op = op::make_struct;
  e.result = st.as_type(id);
  e.index = id;
  e.a = static_cast<std::uint32_t>(graph_.struct_fields.size());
  e.b = static_cast<std::uint32_t>(fields.size());
  e.range = range_of(lit);
  graph_.struct_fields.insert(graph_.struct_fields.end(), fields.begin(), fields.end());
  return push(e);
}

std::uint32_t expr_lowering::lower_field(std::uint32_t e, const ast::identifier& name) {
  if (e == bad_expr) return bad_expr;
  const ir::expr& s = graph_.exprs[e];
  if (!s.result.is_struct()) {
    diags_.error(range_of(name), fmt::format("'.{}' reads a field of a struct, not of {}", name.name,
                                             describe_value_type(s.result, structs_)));
    return bad_expr;
  }
  const ir::structure& st = structs_[s.result.id()];
  std::uint32_t f = st.find(name.name);
  if (f == ir::none) {
    diags_.error(range_of(name), fmt::format("struct '{}' has no field '{}'{}", st.name, name.name,
                                             dsl::did_you_mean(name.name, field_names(st))));
    return bad_expr;
  }
  const ir::field& field = st.fields[f];
  if (s.op == op::make_struct) {  // a literal's field: what was written, converted to the field's type
    const ir::argument& written = graph_.struct_fields[s.a + f];
    const ir::expr& x = graph_.exprs[written.expr];
    if (written.target.is_struct() || x.result == field.t) return written.expr;
    if (x.is_constant())
      return constant(ir::load(ir::convert(x.constant(), field.t).bytes.data(), field.t), field.t, range_of(name));
  }
  ir::expr out;
  out.op = op::field;
  out.result = field.t;
  out.a = e;
  out.index = f;
  out.set_element_size(field.offset);
  out.range = {s.range.begin, range_of(name).end};
  return intern(out);
}

ir::argument expr_lowering::convert(std::uint32_t e, ir::type target, ir::check c, source_range range,
                                    const use_description& what) {
  ir::argument arg{e, target, c, 0, range};
  if (e == bad_expr) return arg;
  ir::type from = graph_.exprs[e].result;
  bool compatible = false;
  switch (target.k) {
    case ir::type::kind::scalar:
      compatible = target.is_bool() ? from.is_bool()
                   : target.is_float() ? (from.is_integer() || from.is_float())
                                       : (from.is_integer() || from.is_bool());  // a bool is 0 or 1
      break;
    // `null` converts to every pointer; a pointer may gain const, never lose it (§9).
    case ir::type::kind::pointer:
    case ir::type::kind::struct_pointer:
      compatible = from.k == ir::type::kind::null ||
                   (ir::type::same_element(from, target) && (!from.is_const || target.is_const));
      break;
    case ir::type::kind::void_pointer: compatible = from.is_pointer() && (!from.is_const || target.is_const); break;
    case ir::type::kind::cond: compatible = from.k == ir::type::kind::cond; break;
    case ir::type::kind::event:
    case ir::type::kind::comm: compatible = from.k == target.k; break;
    case ir::type::kind::null: arg.expr = bad_expr; return arg;  // a parameter's type that is an error, reported
    case ir::type::kind::structure: compatible = from.is_struct() && from.id() == target.id(); break;
  }
  if (!compatible) {
    std::string hint;
    if (from.k == ir::type::kind::cond) hint = "; a cond can only be passed to a 'cond' parameter";
    else if (target.k == ir::type::kind::cond) hint = "; pass a name declared with 'cond'";
    else if (target.is_handle()) hint = fmt::format("; pass a graph parameter of type '{}'", ir::to_string(target));
    else if (from.is_const && target.is_pointer() && !target.is_const)
      hint = "; a pointer to const cannot be written through";
    else if (from.k == ir::type::kind::void_pointer && target.has_element())
      hint = "; 'void*' does not convert to a typed pointer";
    diags_.error(range, fmt::format("cannot convert {} to '{}' for {}{}", describe_value_type(from, structs_),
                                    ir::to_string(target, structs_), what.str(), hint));
    arg.expr = bad_expr;
    return arg;
  }
  if (target.is_integer() && from.is_bool()) arg.expr = e = to_integer(e);
  const ir::expr& x = graph_.exprs[e];
  // Checked without a message (ir::convert_to); ir::convert words the problem when there is one.
  ir::converted_bytes bytes;
  if (x.is_constant() && ir::convert_to(x.constant(), target, c, bytes) != ir::convert_problem::fits) {
    diags_.error(range, fmt::format("{}: {}", what.str(), ir::convert(x.constant(), target, c).error));
    arg.expr = bad_expr;
  }
  return arg;
}

}  // namespace cgraph::compiler::detail
