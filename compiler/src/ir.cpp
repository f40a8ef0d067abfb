#include "node_kinds.hpp"

#include <cgraph/compiler/ir.hpp>

#include <algorithm>
#include <array>

namespace cgraph::ir {

namespace {
struct scalar_info {
  std::string_view name;
  std::uint32_t size;
};
constexpr std::array<scalar_info, 13> scalars = {{{"i8", 1}, {"i16", 2}, {"i32", 4}, {"i64", 8}, {"u8", 1},
                                                  {"u16", 2}, {"u32", 4}, {"u64", 8}, {"f32", 4}, {"f64", 8},
                                                  {"bool", 1}, {"f16", 2}, {"bf16", 2}}};
}  // namespace

std::string_view to_string(scalar s) { return scalars[static_cast<std::size_t>(s)].name; }
std::uint32_t size_of(scalar s) { return scalars[static_cast<std::size_t>(s)].size; }

std::optional<scalar> scalar_from_name(std::string_view name) {
  for (std::size_t i = 0; i < scalars.size(); ++i)
    if (scalars[i].name == name) return static_cast<scalar>(i);
  return std::nullopt;
}

std::string to_string(type t, std::span<const structure> structs) {
  const char* qualifier = t.is_const ? "const " : "";
  switch (t.k) {
    case type::kind::structure: return t.id() < structs.size() ? structs[t.id()].name : "struct";
    case type::kind::scalar: return std::string(to_string(t.s));
    case type::kind::pointer: return qualifier + std::string(to_string(t.s)) + "*";
    case type::kind::void_pointer: return qualifier + std::string("void*");
    case type::kind::struct_pointer: return qualifier + (t.id() < structs.size() ? structs[t.id()].name : "struct") + "*";
    case type::kind::cond: return "cond";
    case type::kind::null: return "null";
    case type::kind::event: return "event";
    case type::kind::comm: return "comm";
  }
  return "?";
}

std::uint32_t size_of(type t) { return t.k == type::kind::scalar ? size_of(t.s) : t.is_struct() ? t.bytes() : 8; }
std::uint32_t align_of(type t) { return t.is_struct() ? t.align : size_of(t); }
std::uint32_t element_size(type pointer, std::span<const structure> structs) {
  if (pointer.k == type::kind::pointer) return size_of(pointer.s);
  return pointer.k == type::kind::struct_pointer && pointer.id() < structs.size() ? structs[pointer.id()].size : 0;
}

std::uint32_t structure::find(std::string_view n) const {
  for (std::uint32_t i = 0; i < fields.size(); ++i)
    if (fields[i].name == n) return i;
  return none;
}

std::string_view to_string(node_kind k) { return detail::info(k).name; }

std::string_view to_string(cond_kind k) {
  constexpr std::array<std::string_view, 4> names = {"if", "if_else", "while", "switch"};
  return names[static_cast<std::size_t>(k)];
}

const graph* program::find_graph(std::string_view name) const {
  auto it = std::find_if(graphs.begin(), graphs.end(), [&](const graph& g) { return g.name == name; });
  return it == graphs.end() ? nullptr : &*it;
}

}  // namespace cgraph::ir
