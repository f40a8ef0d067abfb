#include "emit_values.hpp"

#include <cgraph/compiler/eval.hpp>

#include <array>
#include <algorithm>

#include <fmt/format.h>

namespace cgraph::emit {

namespace {

std::string_view scalar_type(ir::scalar s) {
  switch (s) {
    case ir::scalar::i8: return "std::int8_t";
    case ir::scalar::i16: return "std::int16_t";
    case ir::scalar::i32: return "std::int32_t";
    case ir::scalar::i64: return "std::int64_t";
    case ir::scalar::u8: return "std::uint8_t";
    case ir::scalar::u16: return "std::uint16_t";
    case ir::scalar::u32: return "std::uint32_t";
    case ir::scalar::u64: return "std::uint64_t";
    case ir::scalar::f32: return "float";
    case ir::scalar::f64: return "double";
    case ir::scalar::boolean: return "bool";
    case ir::scalar::f16: return "__half";
    case ir::scalar::bf16: return "__nv_bfloat16";
  }
  return "void";
}

// C++ keywords, and the names generated namespaces declare or use unqualified.
constexpr std::array reserved = {
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch", "char",
    "char8_t", "char16_t", "char32_t", "class", "compl", "concept", "const", "consteval", "constexpr", "constinit",
    "const_cast", "continue", "co_await", "co_return", "co_yield", "decltype", "default", "delete", "do", "double",
    "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto", "if",
    "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or",
    "or_eq", "private", "protected", "public", "register", "reinterpret_cast", "requires", "return", "short", "signed",
    "sizeof", "static", "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local", "throw",
    "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual", "void", "volatile",
    "wchar_t", "while", "xor", "xor_eq",
    // generated code's own names
    "cg", "file", "std", "cgraph", "parameters", "callbacks", "values", "traits", "evaluate", "build", "update",
    "graph", "exec"};

std::string float_literal(double d, bool f32) {
  std::string s = fmt::format("{}", d);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return f32 ? s + "f" : s;
}

std::string integer_literal(std::int64_t i) {
  if (i == std::numeric_limits<std::int64_t>::min()) return "(-9223372036854775807 - 1)";
  return fmt::format("{}", i);
}

// `cgraph::ir::scalar::f16`: a template argument of the 2-byte float helpers.
std::string scalar_enum(ir::scalar s) { return fmt::format("cgraph::ir::scalar::{}", ir::to_string(s)); }

// The helper generated C++ calls for an operation: cg::add, cg::shl, … (the table's names).
std::string_view op_function(ir::op o) { return dsl::info(*ir::operator_of(o)).name; }

}  // namespace

std::string cpp_type(ir::type t, std::span<const ir::structure> structs) {
  const char* qualifier = t.is_const ? "const " : "";
  switch (t.k) {
    case ir::type::kind::structure: return t.id() < structs.size() ? cpp_name(structs[t.id()].name) : "void";
    case ir::type::kind::scalar: return std::string(scalar_type(t.s));
    case ir::type::kind::pointer: return qualifier + std::string(scalar_type(t.s)) + "*";
    case ir::type::kind::void_pointer: return qualifier + std::string("void*");
    case ir::type::kind::struct_pointer: return qualifier + (t.id() < structs.size() ? cpp_name(structs[t.id()].name) : "void") + "*";
    case ir::type::kind::cond: return "cudaGraphConditionalHandle";
    case ir::type::kind::null: return "std::nullptr_t";
    case ir::type::kind::event: return "cudaEvent_t";
    case ir::type::kind::comm: return "ncclComm*";  // ncclComm_t, without nccl.h
  }
  return "void";
}

bool is_small_float(ir::type t) {
  return t.k == ir::type::kind::scalar && (t.s == ir::scalar::f16 || t.s == ir::scalar::bf16);
}

std::string cpp_name(std::string_view name) {
  bool taken = std::find(reserved.begin(), reserved.end(), name) != reserved.end();
  return taken ? std::string(name) + "_" : std::string(name);
}

std::string quoted(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') out += "\\n";
    // A file's name may hold any byte: a raw carriage return ends a literal for some compilers,
    // and bytes that are not UTF-8 are refused by others. Octal takes at most three digits, so
    // unlike \x it never runs on into the character after it.
    else if (byte < 0x20 || byte >= 0x7F) out += fmt::format("\\{:03o}", byte);
    else out += c;
  }
  return out + "\"";
}

std::string value_printer::site(std::uint32_t offset) const {
  auto lc = source_.location(offset);
  std::uint32_t segment = source_.segment_of(offset);  // an imported file names itself
  return fmt::format("cg::site{{{}, {}, {}}}", segment == 0 ? "file" : quoted(source_.segment_name(segment)), lc.line,
                     lc.column);
}

std::string value_printer::domain_type(std::uint32_t index) const {
  ir::type t = g_.exprs[index].result;
  if (t.is_struct()) return cpp_type(t, p_.structs);
  if (t.is_pointer()) return "std::uint64_t";
  if (t.k == ir::type::kind::cond) return "cudaGraphConditionalHandle";
  if (t.k == ir::type::kind::event) return "cudaEvent_t";
  if (t.k == ir::type::kind::comm) return "ncclComm*";
  if (t.is_float()) return "double";
  if (t.is_bool()) return "bool";
  return "std::int64_t";
}

std::string value_printer::expr(std::uint32_t index) const {
  const ir::expr& e = g_.exprs[index];
  switch (e.op) {
    case ir::op::constant:
      switch (const ir::value c = e.constant(); c.k) {
        case ir::value::kind::integer: return integer_literal(c.i);
        case ir::value::kind::floating: return float_literal(c.f, false);
        case ir::value::kind::boolean: return c.bits ? "true" : "false";
        case ir::value::kind::pointer: return fmt::format("std::uint64_t{{0x{:x}}}", c.bits);
        case ir::value::kind::cond: return "cudaGraphConditionalHandle{0}";
        case ir::value::kind::structure:  // a struct literal is make_struct, never a constant
        case ir::value::kind::failed: break;  // a failed constant is reported before emitting
      }
      return "0";
    case ir::op::param: {
      const ir::parameter& p = g_.params[e.index];
      return domain_of(params_ + cpp_name(p.name), p.t, p.range, p.name);
    }
    case ir::op::field: {
      const ir::field& f = p_.structs[g_.exprs[e.a].result.id()].fields[e.index];
      return domain_of(expr(e.a) + "." + cpp_name(f.name), f.t, e.range, f.name);
    }
    case ir::op::make_struct: {  // a struct default-initialized, then each field converted
      // Named by the expression, so a nested literal's variable shadows none.
      const std::string var = fmt::format("cg_s{}", index);
      std::string out = fmt::format("[&] {{ {} {}{{}};", cpp_type(e.result, p_.structs), var);
      const ir::structure& st = p_.structs[e.index];
      for (std::uint32_t f = 0; f < e.b; ++f)
        out += fmt::format(" {}.{} = {};", var, cpp_name(st.fields[f].name),
                           argument(g_.struct_fields[e.a + f], fmt::format("field '{}' of struct '{}'", st.fields[f].name, st.name), e.range));
      return out + fmt::format(" return {}; }}()", var);
    }
    case ir::op::let_ref:
      // One that reads an allocation's address is not in `values` but a function (emit_cpp.cpp, lets).
      return g_.reads_allocation(index) ? late_let(e.index) + "(p, v, g)" : "v." + cpp_name(g_.lets[e.index].name);
    case ir::op::cond_ref: return fmt::format("g.conds[{}]", e.index);
    case ir::op::alloc_ref: return fmt::format("cg::address(g.allocations[{}])", e.index);
    case ir::op::to_float: return "static_cast<double>(" + expr(e.a) + ")";
    case ir::op::neg: return fmt::format("cg::neg({}, {})", expr(e.a), site(e.range.begin));
    // C++'s own &&, || and ?: evaluate only what the language evaluates.
    case ir::op::logical_and: return fmt::format("(cg::truth({}) && cg::truth({}))", expr(e.a), expr(e.b));
    case ir::op::logical_or: return fmt::format("(cg::truth({}) || cg::truth({}))", expr(e.a), expr(e.b));
    case ir::op::logical_not: return fmt::format("(!cg::truth({}))", expr(e.a));
    case ir::op::select: return fmt::format("(cg::truth({}) ? {} : {})", expr(e.a), expr(e.b), expr(e.index));
    case ir::op::to_int: return fmt::format("std::int64_t{{{}}}", expr(e.a));
    case ir::op::ptr_add:
    case ir::op::ptr_sub:
      return fmt::format("cg::ptr_offset({}, {}, {}, {}, {})", expr(e.a), expr(e.b), e.element_size,
                         e.op == ir::op::ptr_add, site(e.range.begin));
    default:
      return fmt::format("cg::{}({}, {}, {})", op_function(e.op), expr(e.a), expr(e.b), site(e.range.begin));
  }
}

std::string value_printer::domain_of(const std::string& member, ir::type t, source_range at, std::string_view name) const {
  if (t.is_struct() || t.is_bool() || t.is_handle()) return member;
  if (t.is_pointer()) return "cg::address(" + member + ")";
  if (is_small_float(t)) return fmt::format("cg::small_float_to_double<{}>({})", scalar_enum(t.s), member);
  if (t.is_float()) return "double{" + member + "}";
  if (t.s == ir::scalar::u64) return fmt::format("cg::from_u64({}, {}, {})", member, site(at.begin), quoted(name));
  return "std::int64_t{" + member + "}";
}

std::string value_printer::literal(const ir::value& v, ir::type target) const {
  if (is_small_float(target)) {  // by its bits: exact, and no dependence on cuda_fp16.h's conversions
    auto c = ir::convert(v, target);
    return fmt::format("cg::from_bits<{}>(0x{:04x}) /* {} */", cpp_type(target, p_.structs), c.as_u64(), ir::format_value(v));
  }
  if (target.is_float()) {
    return float_literal(v.as<double>(), target.s == ir::scalar::f32);
  }
  if (target.is_bool()) return v.bits ? "true" : "false";
  if (target.is_pointer() && v.bits == 0) return "nullptr";
  if (target.is_pointer()) return fmt::format("reinterpret_cast<{}>(std::uint64_t{{0x{:x}}})", cpp_type(target, p_.structs), v.bits);
  switch (target.s) {
    case ir::scalar::i32:
    case ir::scalar::i64: return integer_literal(v.i);
    case ir::scalar::u32: return fmt::format("{}u", v.i);
    case ir::scalar::u64: return fmt::format("{}ull", static_cast<std::uint64_t>(v.i));
    default: return fmt::format("{}{{{}}}", cpp_type(target, p_.structs), v.i);
  }
}

std::string value_printer::argument(const ir::argument& a, std::string_view what, source_range fallback) const {
  const ir::expr& e = g_.exprs[a.expr];
  if (e.is_constant() && a.target.k != ir::type::kind::cond) return literal(e.constant(), a.target);  // checked when compiled
  if (e.op == ir::op::param && g_.params[e.index].t == a.target && a.check == ir::check::any)
    return params_ + cpp_name(g_.params[e.index].name);
  if (a.target.k == ir::type::kind::cond || a.target.is_handle() || a.target.is_bool() ||
      a.target.is_struct())
    return expr(a.expr);
  source_range r = a.range.end > a.range.begin ? a.range : fallback;
  if (is_small_float(a.target))
    return fmt::format("cg::to_small_float<{}, {}>({}, {}, {}, {})", cpp_type(a.target, p_.structs), scalar_enum(a.target.s),
                       expr(a.expr), a.check == ir::check::positive ? "true" : "false", site(r.begin), quoted(what));
  return fmt::format("cg::to<{}>({}, {}, {}, {})", cpp_type(a.target, p_.structs), expr(a.expr),
                     a.check == ir::check::positive ? "true" : "false", site(r.begin), quoted(what));
}

std::string value_printer::default_value(const ir::parameter& p) {
  if (p.default_expr == ir::none) return p.t.is_pointer() ? "nullptr" : "{}";  // a struct: zeroed
  ir::argument a{p.default_expr, p.t, ir::check::any, 0, p.range};
  params_.clear();
  std::string out = argument(a, fmt::format("the default of parameter '{}'", p.name), p.range);
  params_ = "p.";
  return out;
}

}  // namespace cgraph::emit
