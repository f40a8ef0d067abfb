// Top-level constants (LANGUAGE.md §10): evaluated on first use in a scratch expression pool.

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
      d.notes.push_back({range_of(e.decl->name), fmt::format("'{}' is declared here", e.decl->name.name)});
      return std::nullopt;
    }
    case entry::state::pending: break;
  }
  e.s = entry::state::evaluating;
  // No scope: a constant sees other constants only, never a graph's parameters or lets.
  ir::graph scratch;
  scope_stack no_names;
  const std::size_t errors_before = diags_.error_count();
  expr_lowering exprs(scratch, diags_, no_names, globals_, structs_, limits_, this);
  std::uint32_t x = exprs.lower(e.decl->value);
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
  after.s = entry::state::done;
  return std::pair{after.value, after.type};
}

void constant_table::finish(bool warn, std::uint32_t warn_before) {
  for (std::uint32_t i = 0; i < entries_.size(); ++i) resolve(i, {});
  if (!warn) return;
  for (const auto& e : entries_)
    if (!e.used && e.decl->name.begin <= warn_before) diags_.warning(range_of(e.decl->name), fmt::format("constant '{}' is never used", e.decl->name.name));
}

}  // namespace cgraph::compiler::detail
