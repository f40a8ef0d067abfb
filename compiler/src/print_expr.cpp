#include <cgraph/compiler/eval.hpp>
#include <cgraph/compiler/printers.hpp>

#include <fmt/format.h>

namespace cgraph {

namespace {

// Binding strength while printing: the table's for infix operators, then unary minus, then
// atoms and function calls, which never need parentheses.
int precedence(ir::op o) {
  constexpr int atom = dsl::unary_precedence + 1;
  if (o == ir::op::field) return atom + 1;
  if (o == ir::op::select) return dsl::ternary_precedence;
  if (auto b = ir::operator_of(o); b && !dsl::info(*b).is_function()) return dsl::info(*b).precedence;
  return o == ir::op::neg || o == ir::op::logical_not ? dsl::unary_precedence : atom;
}

std::string_view spelling(ir::op o) { return dsl::info(*ir::operator_of(o)).spelling; }

void print(const ir::graph& g, std::uint32_t index, std::string& out, std::span<const ir::structure> structs) {
  const ir::expr& e = g.exprs[index];
  // A bool made an integer prints as written, so it binds as what it converts.
  auto shown = [&](std::uint32_t x) {
    while (g.exprs[x].op == ir::op::to_int) x = g.exprs[x].a;
    return x;
  };
  auto operand = [&](std::uint32_t child, bool right) {
    int mine = precedence(e.op), theirs = precedence(g.exprs[shown(child)].op);
    bool parens = theirs < mine || (right && theirs == mine && mine < dsl::unary_precedence);
    if (parens) out += '(';
    print(g, child, out, structs);
    if (parens) out += ')';
  };
  auto field_name = [&](std::uint32_t id, std::uint32_t f) {
    return id < structs.size() ? structs[id].fields[f].name : fmt::format("field{}", f);
  };
  switch (e.op) {
    case ir::op::constant: out += ir::format_value(e.constant()); return;
    case ir::op::param: out += g.params[e.index].name; return;
    case ir::op::let_ref: out += g.lets[e.index].name; return;
    case ir::op::cond_ref: out += g.conds[e.index].name; return;
    case ir::op::alloc_ref: out += g.allocations[e.index].name; return;
    case ir::op::to_float:
      out += "f64(";
      print(g, e.a, out, structs);
      out += ')';
      return;
    case ir::op::make_struct:
      out += ir::to_string(e.result, structs) + " { ";
      for (std::uint32_t f = 0; f < e.b; ++f) {
        out += (f ? ", " : "") + field_name(e.index, f) + ": ";
        print(g, g.struct_fields[e.a + f].expr, out, structs);
      }
      out += " }";
      return;
    case ir::op::field:
      if (precedence(g.exprs[shown(e.a)].op) <= dsl::unary_precedence) {
        out += '(';
        print(g, e.a, out, structs);
        out += ')';
      } else {
        print(g, e.a, out, structs);
      }
      out += '.' + field_name(g.exprs[e.a].result.id(), e.index);
      return;
    case ir::op::neg:
    case ir::op::logical_not: {
      out += e.op == ir::op::neg ? '-' : '!';
      const std::size_t at = out.size();
      operand(e.a, false);
      // `- -n`, not `--n`, which reads as C's decrement (cgraph has none; its readers know C).
      if (e.op == ir::op::neg && at < out.size() && out[at] == '-') out.insert(at, 1, ' ');
      return;
    }
    case ir::op::to_int:  // a bool in arithmetic: printed as written
      print(g, e.a, out, structs);
      return;
    case ir::op::select:  // groups to the right: only a condition that is one needs parentheses
      operand(e.a, true);
      out += " ? ";
      print(g, e.b, out, structs);
      out += " : ";
      print(g, e.index, out, structs);
      return;
    default:
      break;
  }
  if (dsl::info(*ir::operator_of(e.op)).is_function()) {
    out += spelling(e.op);
    out += '(';
    print(g, e.a, out, structs);
    out += ", ";
    print(g, e.b, out, structs);
    out += ')';
    return;
  }
  operand(e.a, false);
  out += fmt::format(" {} ", spelling(e.op));
  operand(e.b, true);
}

}  // namespace

std::string print_expr(const ir::graph& g, std::uint32_t e, std::span<const ir::structure> structs) {
  std::string out;
  if (e >= g.exprs.size()) return "<error>";
  print(g, e, out, structs);
  return out;
}

}  // namespace cgraph
