#include <cgraph/compiler/eval.hpp>
#include <cgraph/compiler/printers.hpp>

#include <fmt/format.h>

namespace cgraph {

namespace {

// Binding strength while printing: the table's for infix operators, then unary minus, then
// atoms and function calls, which never need parentheses.
int precedence(ir::op o) {
  if (auto b = ir::operator_of(o); b && !dsl::info(*b).is_function()) return dsl::info(*b).precedence;
  return o == ir::op::neg ? 7 : 8;
}

std::string_view spelling(ir::op o) { return dsl::info(*ir::operator_of(o)).spelling; }

void print(const ir::graph& g, std::uint32_t index, std::string& out) {
  const ir::expr& e = g.exprs[index];
  auto operand = [&](std::uint32_t child, bool right) {
    int mine = precedence(e.op), theirs = precedence(g.exprs[child].op);
    bool parens = theirs < mine || (right && theirs == mine && mine < 7);
    if (parens) out += '(';
    print(g, child, out);
    if (parens) out += ')';
  };
  switch (e.op) {
    case ir::op::constant: out += ir::format_value(e.constant); return;
    case ir::op::param: out += g.params[e.index].name; return;
    case ir::op::let_ref: out += g.lets[e.index].name; return;
    case ir::op::cond_ref: out += g.conds[e.index].name; return;
    case ir::op::to_float:
      out += "f64(";
      print(g, e.a, out);
      out += ')';
      return;
    case ir::op::neg:
      out += '-';
      operand(e.a, false);
      return;
    default:
      break;
  }
  if (dsl::info(*ir::operator_of(e.op)).is_function()) {
    out += spelling(e.op);
    out += '(';
    print(g, e.a, out);
    out += ", ";
    print(g, e.b, out);
    out += ')';
    return;
  }
  operand(e.a, false);
  out += fmt::format(" {} ", spelling(e.op));
  operand(e.b, true);
}

}  // namespace

std::string print_expr(const ir::graph& g, std::uint32_t e) {
  std::string out;
  if (e >= g.exprs.size()) return "<error>";
  print(g, e, out);
  return out;
}

}  // namespace cgraph
