// Top-level constants (LANGUAGE.md §10): evaluated once each, in a scratch expression pool.

#include "lowering.hpp"

#include <fmt/format.h>

namespace cgraph::compiler::detail {

std::optional<std::pair<ir::value, ir::type>> constant_table::resolve(std::uint32_t index, source_range use) {
  entry& e = entries_[index];
  if (use.end > use.begin) e.used = true;
  switch (e.s) {
    case entry::state::done: return std::pair{e.value, e.type};
    case entry::state::failed: return std::nullopt;
    case entry::state::evaluating: {
      auto& d = diags_.error(use, fmt::format("constant '{}' depends on itself", e.decl->name.name));
      d.note(range_of(e.decl->name), fmt::format("'{}' is declared here", e.decl->name.name));
      return std::nullopt;
    }
    case entry::state::pending: break;
  }
  if (depth_ >= limits_.max_nesting) {
    auto& d = diags_.error(use, fmt::format("constants nest deeper than the limit of {} levels: '{}' is evaluated "
                                            "inside {} others, each using one declared after it",
                                            limits_.max_nesting, e.decl->name.name, depth_));
    d.note(range_of(e.decl->name), fmt::format("'{}' is declared here; declare constants before the "
                                                           "constants that use them", e.decl->name.name));
    return std::nullopt;
  }
  e.s = entry::state::evaluating;
  // No scope: a constant sees other constants only, never a graph's parameters or lets.
  ir::graph scratch;
  scope_stack no_names;
  const std::size_t errors_before = diags_.error_count();
  expr_lowering exprs(scratch, diags_, no_names, globals_, structs_, limits_, this);
  ++depth_;
  std::uint32_t x = exprs.lower(e.decl->value);
  --depth_;
  entry& after = entries_[index];  // (the vector does not grow, but keep the reference plain)
  if (x == bad_expr || diags_.error_count() != errors_before) {
    after.s = entry::state::failed;
    return std::nullopt;
  }
  const ir::expr& value = scratch.exprs[x];
  // A struct constant is a literal of constants (its uses lower the expression again).
  auto known = [&](auto& self, const ir::expr& v) -> bool {
    if (v.op != ir::op::make_struct) return v.is_constant() && v.result.k != ir::type::kind::cond;
    for (std::uint32_t f = v.a; f < v.a + v.b; ++f)
      if (!self(self, scratch.exprs[scratch.struct_fields[f].expr])) return false;
    return true;
  };
  if (!known(known, value)) {
    diags_.error(range_of(e.decl->value), fmt::format("constant '{}' needs a value known when compiling",
                                                      e.decl->name.name));
    after.s = entry::state::failed;
    return std::nullopt;
  }
  after.value = value.constant();
  after.type = value.result;
  if (value.result.is_struct()) keep_literal(scratch, x, after.literal);
  after.s = entry::state::done;
  return std::pair{after.value, after.type};
}

std::uint32_t constant_table::keep_literal(const ir::graph& scratch, std::uint32_t x, constant_literal& out) {
  ir::expr e = scratch.exprs[x];
  if (e.op == ir::op::make_struct) {
    std::vector<ir::argument> fields(scratch.struct_fields.begin() + e.a, scratch.struct_fields.begin() + e.a + e.b);
    for (ir::argument& f : fields) f.expr = keep_literal(scratch, f.expr, out);  // as deep as structs nest
    e.a = static_cast<std::uint32_t>(out.fields.size());
    out.fields.insert(out.fields.end(), fields.begin(), fields.end());
  }
  out.exprs.push_back(e);
  return static_cast<std::uint32_t>(out.exprs.size() - 1);
}

void constant_table::warn_unused(std::uint32_t warn_before) {
  for (const auto& e : entries_)
    if (!e.used && e.decl->name.begin <= warn_before) diags_.warning(range_of(e.decl->name), fmt::format("constant '{}' is never used", e.decl->name.name));
}

}  // namespace cgraph::compiler::detail
