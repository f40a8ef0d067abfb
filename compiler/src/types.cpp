#include "lowering.hpp"

#include <fmt/format.h>

namespace cgraph::compiler::detail {

std::string_view describe(global_symbol::kind k) {
  switch (k) {
    case global_symbol::kind::kernel: return "a kernel";
    case global_symbol::kind::host: return "a host callback";
    case global_symbol::kind::library: return "a module or source";
    case global_symbol::kind::graph: return "a graph";
    case global_symbol::kind::constant: return "a constant";
  }
  return "a name";
}

std::vector<std::string_view> names_of(const global_table& globals, global_symbol::kind k) {
  std::vector<std::string_view> out;
  for (const auto& [name, g] : globals)
    if (g.k == k) out.push_back(name);
  return out;
}

std::optional<ir::type> resolve_type(const ast::type_name& t, diagnostics& diags) {
  if (t.is_const && !t.pointer) {
    diags.error(range_of(t), fmt::format("'const' applies to pointers only: write 'const {}*', or '{}' for a value "
                                         "(values are passed by copy)", t.base, t.base));
    return std::nullopt;
  }
  if (t.base == "void") {
    if (t.pointer) return ir::type::void_pointer(t.is_const);
    diags.error(range_of(t), "'void' is only a type as 'void*'");
    return std::nullopt;
  }
  if (t.base == "cond") {
    if (t.is_const) {
      diags.error(range_of(t), "'const cond*' is not a type; conds are passed by value");
      return std::nullopt;
    }
    if (!t.pointer) return ir::type::cond();
    diags.error(range_of(t), "'cond*' is not a type; conds are passed by value");
    return std::nullopt;
  }
  auto s = ir::scalar_from_name(t.base);
  if (!s) {  // the parser only accepts known names; kept for safety
    diags.error(range_of(t), fmt::format("unknown type '{}'", t.base));
    return std::nullopt;
  }
  return t.pointer ? ir::type::pointer_to(*s, t.is_const) : ir::type::of(*s);
}

}  // namespace cgraph::compiler::detail
