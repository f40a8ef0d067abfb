#include <cgraph/eval.hpp>
#include <cgraph/printers.hpp>

#include <fmt/format.h>

namespace cgraph {

namespace {

int precedence(ir::op o) {
  switch (o) {
    case ir::op::mul: case ir::op::div: case ir::op::mod: return 6;
    case ir::op::add: case ir::op::sub: case ir::op::ptr_add: case ir::op::ptr_sub: return 5;
    case ir::op::shl: case ir::op::shr: return 4;
    case ir::op::bit_and: return 3;
    case ir::op::bit_xor: return 2;
    case ir::op::bit_or: return 1;
    case ir::op::neg: return 7;
    default: return 8;  // atoms and function calls
  }
}

std::string_view spelling(ir::op o) {
  switch (o) {
    case ir::op::mul: return "*";
    case ir::op::div: return "/";
    case ir::op::mod: return "%";
    case ir::op::add: case ir::op::ptr_add: return "+";
    case ir::op::sub: case ir::op::ptr_sub: return "-";
    case ir::op::shl: return "<<";
    case ir::op::shr: return ">>";
    case ir::op::bit_and: return "&";
    case ir::op::bit_xor: return "^";
    case ir::op::bit_or: return "|";
    case ir::op::min: return "min";
    case ir::op::max: return "max";
    case ir::op::ceil_div: return "ceil_div";
    default: return "?";
  }
}

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
    case ir::op::min: case ir::op::max: case ir::op::ceil_div:
      out += spelling(e.op);
      out += '(';
      print(g, e.a, out);
      out += ", ";
      print(g, e.b, out);
      out += ')';
      return;
    default:
      operand(e.a, false);
      out += fmt::format(" {} ", spelling(e.op));
      operand(e.b, true);
  }
}

}  // namespace

std::string print_expr(const ir::graph& g, std::uint32_t e) {
  std::string out;
  if (e >= g.exprs.size()) return "<error>";
  print(g, e, out);
  return out;
}

}  // namespace cgraph
