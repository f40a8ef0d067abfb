#pragma once
// Expressions: literals, names, min/max/ceil_div, sizeof(T), parentheses, struct literals,
// field access, unary `-` and `!`, a flat list of binary operators (precedence is applied by
// the checker) and `? :`.

#include "common.hpp"
#include "expression.hpp"
#include "nesting.hpp"

#include <cgraph/dsl/ast_adapted.hpp>

namespace cgraph::dsl::parser {

struct expression_class : annotate_position {};
struct launch_dims_class : annotate_position {};
struct function_call_class : annotate_position {};
struct sizeof_class : annotate_position {};
struct parenthesized_class : annotate_position {};
struct struct_literal_class : annotate_position {};
struct field_init_class : annotate_position {};

const expression_type expression = "expression";
const launch_dims_type launch_dims = "launch dimension";
const x3::rule<function_call_class, ast::function_call> function_call = "function call";
const x3::rule<sizeof_class, ast::sizeof_expr> sizeof_expr = "sizeof";
const x3::rule<parenthesized_class, ast::parenthesized> parenthesized = "parenthesized expression";
const x3::rule<struct_literal_class, ast::struct_literal> struct_literal = "struct literal";
const x3::rule<field_init_class, ast::field_init> field_init = "a field";
struct argument_list_class;
const x3::rule<argument_list_class, ast::list<ast::expression>> argument_list = "an argument";

// One operand, its kind decided from its first byte and, for a name, the byte after it: a digit
// or '.' starts a number, '(' a parenthesized expression; `true`, `false`, `null` and `sizeof`
// are literals; a name followed by '(' is a call, a struct's name followed by '{' a literal,
// any other name a name. The same language as trying each kind in turn (float, int, bool,
// null, sizeof, struct literal, name, call, parentheses), without building and discarding an
// attribute for each kind that fails: operands are a third of the parser's work.
struct primary_parser : x3::parser<primary_parser> {
  using attribute_type = ast::operand;
  static bool const has_attribute = true;

  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx& rctx, Attr& attr) const {
    using detail::parse_as;
    x3::skip_over(first, last, ctx);
    if (first == last) return false;
    const char c = *first;
    if (lexical::is_digit(c) || c == '.') {
      // A float has a fraction or an exponent right after its leading digits (float_parser):
      // without a '.', 'e' or 'E' there, the number is an integer, and no float is tried.
      const char* after = first;
      while (after != last && lexical::is_digit(*after)) ++after;
      if (after != last && (*after == '.' || *after == 'e' || *after == 'E') &&
          parse_as<ast::float_literal>(float_parser{}, first, last, ctx, rctx, attr))
        return true;
      return parse_as<ast::int_literal>(int_parser{}, first, last, ctx, rctx, attr);
    }
    if (c == '(') return parse_as<ast::parenthesized>(parenthesized, first, last, ctx, rctx, attr);
    const std::string_view word = detail::word_at(first, last, ctx);
    if (word.empty()) return false;
    if (lexical::is_keyword(word)) {
      if (word == "true" || word == "false") return parse_as<ast::bool_literal>(bool_parser{}, first, last, ctx, rctx, attr);
      if (word == "null") return parse_as<ast::null_literal>(null_parser{}, first, last, ctx, rctx, attr);
      if (word == "sizeof") return parse_as<ast::sizeof_expr>(sizeof_expr, first, last, ctx, rctx, attr);
      return false;
    }
    It next = first + word.size();
    x3::skip_over(next, last, ctx);
    if (next != last && *next == '(') return parse_as<ast::function_call>(function_call, first, last, ctx, rctx, attr);
    if (next != last && *next == '{' && parser_state::current()->is_struct_name(word))
      return parse_as<ast::struct_literal>(struct_literal, first, last, ctx, rctx, attr);
    detail::take_identifier(word, first, attr);  // what identifier_parser does, the word already checked
    return true;
  }
};
const primary_parser primary{};
// `.FIELD` after an operand wraps it in a field_access (one for all the fields that follow).
inline void add_field(ast::operand& v, ast::identifier&& field) {
  if (auto* held = boost::get<x3::forward_ast<ast::field_access>>(&v)) {
    held->get().fields.push_back(std::move(field));
    return;
  }
  ast::field_access access;
  const auto& base = boost::apply_visitor([](const auto& x) -> const ast::tagged& { return ast::unwrap(x); }, v);
  access.begin = base.begin;
  access.base = std::move(v);
  access.fields.push_back(std::move(field));
  access.end = access.fields.back().end;
  v = x3::forward_ast<ast::field_access>(std::move(access));
}

// A whole expression, parsed by hand:
//
//   expression = unary >> *operation >> *choice
//   operation  = binary_op > unary              choice  = '?' > expression > ':' > expression
//   unary      = signs >> operand               operand = primary >> *('.' >> !'.' > identifier)
//
// That was the X3 composition it replaces, and the language, the tree, every node's range (its
// first token to the end of its last) and every expectation failure (where and what) are the
// same. It writes each node in place, where the rules built a temporary per level and moved it
// up: expressions, six or more to a launch, were a third of the parser's instructions.
struct expression_parser : detail::token_parser<expression_parser, ast::expression> {
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx& rctx, Attr& attr) const {
    ast::expression& e = attr;
    It p = first;
    if (!unary(p, last, ctx, rctx, e.first)) return false;
    It next = skipped(p, last, ctx);  // where the next token is: an operator, `?` or what follows
    for (;;) {
      It q = next;
      ast::binary_op op{};
      if (q == last || !dsl::may_start_infix(*q) || !binary_op_parser{}.parse(q, last, ctx, rctx, op)) break;
      ast::operation& o = e.add_tail().rest.emplace_back();
      o.op = op;
      if (!unary(q, last, ctx, rctx, o.rhs)) detail::expected(q, x3::what(expression));
      detail::tag(o, next, q);
      p = q;
      next = skipped(p, last, ctx);
    }
    // The `? :` after a condition: at most one, since the expression after ':' takes any more.
    if (It q = next; q != last && *q == '?') {
      const It question = q++;
      const unbracketed_level level(question, q, "conditional expressions ('? :')");
      ast::choice& c = e.add_tail().choice.emplace();
      if (!expression.parse(q, last, ctx, rctx, c.then)) detail::expected(q, x3::what(expression));
      if (!x3::lit(':').parse(q, last, ctx, rctx, x3::unused)) detail::expected(q, x3::what(x3::lit(':')));
      if (!expression.parse(q, last, ctx, rctx, c.otherwise)) detail::expected(q, x3::what(expression));
      detail::tag(c, question, q);
      p = q;
    }
    first = p;
    return true;
  }

private:
  template <typename It, typename Ctx>
  static It skipped(It p, It const& last, Ctx const& ctx) {
    x3::skip_over(p, last, ctx);
    return p;
  }

  // The signs, then an operand; fails (consuming nothing) when no operand follows.
  template <typename It, typename Ctx, typename RCtx>
  static bool unary(It& first, It const& last, Ctx const& ctx, RCtx& rctx, ast::unary& u) {
    It p = skipped(first, last, ctx);
    if (p != last && (*p == '-' || *p == '!'))  // most operands have no sign: no list is made
      prefix_parser{}.parse(p, last, ctx, rctx, u.prefix.emplace());
    if (!operand(p, last, ctx, rctx, u.value)) return false;
    detail::tag(u, skipped(first, last, ctx), p);
    first = p;
    return true;
  }

  template <typename It, typename Ctx, typename RCtx>
  static bool operand(It& first, It const& last, Ctx const& ctx, RCtx& rctx, ast::operand& v) {
    if (!primary.parse(first, last, ctx, rctx, v)) return false;
    for (;;) {
      It q = skipped(first, last, ctx);
      if (q == last || *q != '.') break;
      ++q;
      if (const It r = skipped(q, last, ctx); r != last && *r == '.') break;  // `..`, a range's
      ast::identifier field;
      if (!identifier.parse(q, last, ctx, rctx, field)) detail::expected(q, x3::what(identifier));
      add_field(v, std::move(field));
      first = q;
    }
    return true;
  }
};

const auto expression_def = expression_parser{};
const auto struct_literal_def = struct_name_parser{} >> '{' > -(field_init % ',') > -x3::lit(',') > '}';
const auto field_init_def = identifier > ':' > expression;
const auto function_call_def = identifier >> '(' > argument_list > ')';
const auto argument_list_def = expression % ',';
const auto sizeof_expr_def = kw("sizeof") > '(' > type > ')';
// Single-member structs get their member through an action: X3 would try to assign the
// member's type to the whole struct.
const auto set_inner = [](auto& ctx) { x3::_val(ctx).inner = std::move(x3::_attr(ctx)); };
const auto parenthesized_def = mark_begin >> '(' > expression[set_inner] > ')' > mark_end;

// A launch dimension, parsed by hand as `dims_tuple | expression` was, straight into the list:
// (a, b [, c]) backtracks to a plain expression when it is not a tuple, so "(n + 1) * 2" works.
struct launch_dims_parser : detail::token_parser<launch_dims_parser, ast::list<ast::expression>> {
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx& rctx, Attr& attr) const {
    ast::list<ast::expression>& dims = attr;
    dims.clear();
    It p = first;
    x3::skip_over(p, last, ctx);
    if (p != last && *p == '(' && tuple(first, last, ctx, rctx, dims)) return true;
    dims.clear();
    if (expression.parse(first, last, ctx, rctx, dims.emplace_back())) return true;
    dims.clear();
    return false;
  }

private:
  // '(' >> expression >> ',' >> expression >> -(',' >> expression) >> ')'; consumes nothing
  // when it fails.
  template <typename It, typename Ctx, typename RCtx>
  static bool tuple(It& first, It const& last, Ctx const& ctx, RCtx& rctx, ast::list<ast::expression>& dims) {
    It p = first;
    dims.reserve(3);
    if (!x3::lit('(').parse(p, last, ctx, rctx, x3::unused) || !expression.parse(p, last, ctx, rctx, dims.emplace_back()) ||
        !x3::lit(',').parse(p, last, ctx, rctx, x3::unused) || !expression.parse(p, last, ctx, rctx, dims.emplace_back()))
      return false;
    if (It q = p; x3::lit(',').parse(q, last, ctx, rctx, x3::unused)) {
      if (expression.parse(q, last, ctx, rctx, dims.emplace_back())) p = q;
      else dims.pop_back();  // the optional third fails as a whole; ')' then fails at the ','
    }
    if (!x3::lit(')').parse(p, last, ctx, rctx, x3::unused)) return false;
    first = p;
    return true;
  }
};
const auto launch_dims_def = launch_dims_parser{};

BOOST_SPIRIT_DEFINE(expression, launch_dims, function_call, sizeof_expr, parenthesized, argument_list,
                    struct_literal, field_init)

}  // namespace cgraph::dsl::parser

namespace cgraph::dsl {
const parser::expression_type& expression() { return parser::expression; }
const parser::launch_dims_type& launch_dims() { return parser::launch_dims; }
}  // namespace cgraph::dsl
