#pragma once
// Statements of a graph body (LANGUAGE.md §5).

#include "common.hpp"
#include "expression.hpp"
#include "nesting.hpp"
#include "statement.hpp"

#include <cgraph/dsl/ast_adapted.hpp>

#include <algorithm>
#include <vector>

namespace cgraph::dsl::parser {

struct block_class : annotate_position {};
struct statement_class : report_syntax_error {};
struct node_prefix_class : annotate_position {};
struct attribute_class : annotate_position {};
struct attributes_class : annotate_position {};
struct after_clause_class : annotate_position {};
struct launch_class : annotate_position {};
struct builtin_class : annotate_position {};
struct host_call_class : annotate_position {};
struct event_class : annotate_position {};
struct alloc_class : annotate_position {};
struct free_class : annotate_position {};
struct graph_call_class : annotate_position {};
struct let_class : annotate_position {};
struct cond_class : annotate_position {};
struct if_class : annotate_position {};
struct else_if_class : annotate_position {};
struct while_class : annotate_position {};
struct case_class : annotate_position {};
struct switch_class : annotate_position {};
struct repeat_class : annotate_position {};
struct parallel_class : annotate_position {};
struct for_class : annotate_position {};
struct collective_class : annotate_position {};
struct group_class : annotate_position {};
struct device_class : annotate_position {};
struct args_class : annotate_position {};

const block_type block = "'{'";
const x3::rule<statement_class, ast::statement> statement = "statement";
const x3::rule<node_prefix_class, ast::prefix_parts> node_prefix = "label";
const x3::rule<attribute_class, ast::attribute> attribute = "an attribute";
const x3::rule<attributes_class, ast::list<ast::attribute>> attributes = "attributes";
const x3::rule<after_clause_class, ast::after_list> after_clause = "after";
struct label_list_class;
const x3::rule<label_list_class, ast::after_list> label_list = "a label";
const x3::rule<args_class, ast::list<ast::expression>> arguments = "arguments";
const x3::rule<launch_class, ast::launch_stmt> launch_stmt = "kernel launch";
const x3::rule<builtin_class, ast::builtin_stmt> builtin_stmt = "memcpy or memset";
const x3::rule<host_call_class, ast::host_stmt> host_stmt = "host call";
const x3::rule<event_class, ast::event_stmt> event_stmt = "record or wait";
const x3::rule<alloc_class, ast::alloc_stmt> alloc_stmt = "alloc";
const x3::rule<free_class, ast::free_stmt> free_stmt = "free";
const x3::rule<graph_call_class, ast::call_stmt> call_stmt = "call";
const x3::rule<let_class, ast::let_stmt> let_stmt = "let";
const x3::rule<cond_class, ast::cond_stmt> cond_stmt = "cond";
const x3::rule<if_class, ast::if_stmt> if_stmt = "if";
// Named by its first word: after `else`, "expected 'if' or '{'" (the else body's two forms).
const x3::rule<else_if_class, ast::block> else_if = "'if'";
const x3::rule<while_class, ast::while_stmt> while_stmt = "while";
const x3::rule<case_class, ast::case_clause> case_clause = "'case'";
const x3::rule<switch_class, ast::switch_stmt> switch_stmt = "switch";
const x3::rule<repeat_class, ast::repeat_stmt> repeat_stmt = "repeat";
const x3::rule<parallel_class, ast::parallel_stmt> parallel_stmt = "parallel";
const x3::rule<for_class, ast::for_stmt> for_stmt = "for";
const x3::rule<collective_class, ast::collective_stmt> collective_stmt = "collective";
const x3::rule<group_class, ast::group_stmt> group_stmt = "group";
const x3::rule<device_class, ast::device_stmt> device_stmt = "on device";

// node_prefix, parsed once per statement: the alternatives of `statement` all begin with it,
// so each that fails after it (a launch tried as `record`, `alloc` and `free` first) would
// parse it again, label and all, with the skipper run each time. Only successes are kept;
// a prefix that fails, fails the same way each time.
struct memo_prefix_parser : x3::parser<memo_prefix_parser> {
  using attribute_type = ast::node_prefix;
  static bool const has_attribute = true;
  template <typename Iterator, typename Context, typename RContext, typename Attribute>
  bool parse(Iterator& first, const Iterator& last, const Context& ctx, RContext& rctx, Attribute& attr) const {
    if (!skip(first, last, ctx, rctx)) return false;
    copy(parser_state::current()->prefix.value, attr);
    return true;
  }

  // Moves `first` past the prefix there (parsing it into the memo unless it is there already),
  // without copying it out: how statement_parser looks past it.
  template <typename Iterator, typename Context, typename RContext>
  static bool skip(Iterator& first, const Iterator& last, const Context& ctx, RContext& rctx) {
    parser_state::prefix_memo& memo = parser_state::current()->prefix;
    if (memo.at == first) {
      first = memo.end;
      return true;
    }
    const Iterator start = first;
    // Invalid until this parse succeeds: a prefix that throws (an expectation failure inside
    // `[[…]]`) must not leave another position's memo pointing at a cleared value.
    memo.at = nullptr;
    clear(memo.value);  // X3 appends to the containers of an attribute it parses into
    if (!node_prefix.parse(first, last, ctx, rctx, memo.value)) return false;
    memo.at = start;
    memo.end = first;
    return true;
  }

private:
  // Most statements have no prefix: then only its position is copied, and nothing is made.
  static void copy(const ast::prefix_parts& from, ast::node_prefix& to) {
    static_cast<ast::tagged&>(to) = from;
    if (from.empty()) to.parts.reset();
    else to.parts.emplace(from);
  }
  static void clear(ast::prefix_parts& p) {
    p.attributes.clear();
    p.label.reset();
    p.after.clear();
  }
};
const memo_prefix_parser prefix{};

const auto push_statement = [](auto& ctx) { x3::_val(ctx).statements.push_back(std::move(x3::_attr(ctx))); };

// `eps >> …`: a sequence puts the iterator back where the statement began when it fails, so
// recovery skips the whole statement. A rule whose error handler answers `fail` leaves the
// iterator where the error was in Boost 1.83 (not in 1.74), and recovery from there took the
// statement's closing brace for its block's.
const auto block_def = mark_begin >> '{' > *(x3::omit[x3::eps >> statement[push_statement]] | recover_parser(false)) > '}' > mark_end;

// parse_body(): a graph body parse() deferred, as block_def parses a block, but each statement
// goes to parser_state::on_statement as soon as it is parsed, and is dropped after; none once a
// syntax error was reported (compile then parses the text again to report it).
const auto hand_over_statement = [](auto& ctx) {
  parser_state& state = *parser_state::current();
  if (state.syntax_errors.empty()) (*state.on_statement)(x3::_attr(ctx));
};
const auto body_statements = x3::lit('{') > *(x3::omit[x3::eps >> statement[hand_over_statement]] | recover_parser(false)) > '}';

const auto node_prefix_def = -attributes >> -label_parser{} >> after_clause;
const auto attribute_def = identifier > -arguments;
const auto attributes_def = punct("[[") > (attribute % ',') > punct("]]");
const auto after_clause_def = -(kw("after") > label_list);
const auto label_list_def = after_label_parser{} % ',';
// `( E, E, … )`, parsed by hand as `'(' > -(expression > *(',' > expression)) > ')'` was: after a
// ',' another argument must follow, so a bad one is reported where it stands. The arguments
// go straight into the statement's list, sized once from the commas ahead: X3 built the list
// in a temporary, growing it one argument at a time, and then copied it over.
struct arguments_parser : detail::token_parser<arguments_parser, ast::list<ast::expression>> {
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx& rctx, Attr& attr) const {
    ast::list<ast::expression>& out = attr;
    It p = first;
    if (!x3::lit('(').parse(p, last, ctx, rctx, x3::unused)) return false;
    out.reserve(out.size() + count_hint(p, last));
    if (expression().parse(p, last, ctx, rctx, out.emplace_back())) {
      for (;;) {
        It q = p;
        if (!x3::lit(',').parse(q, last, ctx, rctx, x3::unused)) break;
        if (!expression().parse(q, last, ctx, rctx, out.emplace_back()))
          detail::expected(q, x3::what(expression()));
        p = q;
      }
    } else {
      out.pop_back();
    }
    if (!x3::lit(')').parse(p, last, ctx, rctx, x3::unused))
      detail::expected(p, x3::what(x3::lit(')')));
    first = p;
    return true;
  }

private:
  // How many arguments follow `(` at p: one more than the commas before its `)`, outside
  // nested brackets, strings and comments (1 for none: the reservation is only a hint).
  static std::size_t count_hint(const char* p, const char* last) {
    std::size_t commas = 0;
    int depth = 0;
    while (p < last) {
      const char c = *p;
      if (c == '"' || (c == '/' && last - p >= 2 && (p[1] == '/' || p[1] == '*'))) {
        const char* q = c == '"' ? lexical::skip_string(p, last)
                        : p[1] == '/' ? lexical::skip_line_comment(p, last) : lexical::skip_block_comment(p, last);
        if (!q) break;
        p = q;
        continue;
      }
      if (c == '(' || c == '[' || c == '{') ++depth;
      else if (c == ')' || c == ']' || c == '}') {
        if (depth-- == 0) break;
      } else if (c == ',' && depth == 0) {
        ++commas;
      } else if (c == ';') {
        break;
      }
      ++p;
    }
    return std::min<std::size_t>(commas + 1, 64);
  }
};
const auto arguments_def = arguments_parser{};

const auto launch_stmt_def = prefix >> identifier > punct("<<<") > launch_dims() > ',' > launch_dims() >
                             -(',' > expression()) > punct(">>>") > arguments > after_clause > ';';
const auto builtin_stmt_def = prefix >> builtin_keyword_parser{} > arguments >
                              after_clause > ';';
// `record` and `wait` are not reserved (a kernel may be named so): `record<<<…` fails at the
// missing name and is parsed as a launch.
const auto event_kind = (kw("record") >> x3::attr(false)) | (kw("wait") >> x3::attr(true));
const auto event_stmt_def = prefix >> event_kind >> identifier >> after_clause > ';';
// Nor are `alloc` and `free`: each commits once its name (and the ':' of alloc) is seen.
const auto alloc_stmt_def = prefix >> kw("alloc") >> identifier >> ':' > type > '[' > expression() > ']' >
                            after_clause > ';';
const auto free_stmt_def = prefix >> kw("free") >> identifier >> after_clause > ';';
const auto host_stmt_def = prefix >> kw("host") > identifier > arguments > after_clause > ';';
const auto call_stmt_def = prefix >> kw("call") > identifier > arguments > after_clause > ';';
const auto let_stmt_def = kw("let") > identifier > '=' > expression() > ';';
const auto cond_stmt_def = kw("cond") > identifier > -('=' > expression()) > ';';
// `else if B { … }` is an else body holding that `if` (marked, so fmt prints it back as written).
// The `if` is parsed holding a level of nesting (nesting.hpp): a chain of them recurses once a
// link. Fails, consuming nothing, where no `if` follows (the else body is then a block).
struct else_if_parser : x3::parser<else_if_parser> {
  using attribute_type = ast::block;
  static bool const has_attribute = true;
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx& rctx, Attr& attr) const {
    It at = first;
    if (!memo_prefix_parser::skip(at, last, ctx, rctx) || detail::word_at(at, last, ctx) != "if") return false;
    const unbracketed_level level(at, at + 2, "'else if' chains");
    ast::if_stmt nested;
    if (!if_stmt.parse(first, last, ctx, rctx, nested)) return false;
    ast::block& b = attr;
    b.else_if = true;
    b.begin = nested.begin;
    b.end = nested.end;
    b.statements.emplace_back(x3::forward_ast<ast::if_stmt>(std::move(nested)));
    return true;
  }
};
const auto if_stmt_def = prefix >> kw("if") > identifier > after_clause > block > -(kw("else") > (else_if | block));
const auto else_if_def = else_if_parser{};
const auto while_stmt_def = prefix >> kw("while") > identifier > after_clause > block;
const auto case_clause_def = kw("case") > expression() > block;
const auto switch_stmt_def = prefix >> kw("switch") > identifier > after_clause > '{' > *case_clause > '}';
const auto repeat_stmt_def = prefix >> kw("repeat") > expression() > after_clause > block;
const auto set_branches = [](auto& ctx) { x3::_val(ctx).branches = std::move(x3::_attr(ctx)); };
const auto parallel_stmt_def = mark_begin >> kw("parallel") > block[set_branches] > mark_end;
const auto for_kind = (kw("parallel") >> kw("for") >> x3::attr(true)) | (kw("for") >> x3::attr(false));
const auto for_stmt_def = for_kind > identifier > kw("in") > expression() > x3::lit("..") > expression() > block;
// `group` and `on` are not reserved either: each commits at the '{' or the `device` after it.
const auto collective_stmt_def = prefix >> collective_keyword_parser{} > arguments > after_clause > ';';
const auto group_stmt_def = prefix >> kw("group") >> after_clause >> &x3::lit('{') > block;
const auto device_stmt_def = kw("on") >> kw("device") > '(' > expression() > ')' > block;

// Every statement kind in turn. The words `record`, `wait`, `alloc`, `free`, `group`, `on` and
// the collectives' names are not reserved, so their statements come before the launch, which
// would take them for a kernel's name.
const auto any_statement = event_stmt | alloc_stmt | free_stmt | collective_stmt | group_stmt | device_stmt | launch_stmt |
                           builtin_stmt | let_stmt | cond_stmt | for_stmt | parallel_stmt | if_stmt | while_stmt |
                           switch_stmt | repeat_stmt | host_stmt | call_stmt | block;

// Statements recognised from the words after the prefix: a name that is not a keyword followed
// by `<<<` is a launch, `memcpy(` or `memset(` a copy or a fill, a reserved word names its
// statement (keyword_statement), and `{` opens a block. No statement before them in
// `any_statement` matches such text, so parsing them at once gives the same tree and the same
// errors, without building and discarding an attribute for each statement kind tried before
// (the launch came seventh, a block last). Anything else, and a statement whose rule fails
// before its commit point, goes through `any_statement`.
struct statement_parser : x3::parser<statement_parser> {
  using attribute_type = ast::statement;
  static bool const has_attribute = true;

  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx& rctx, Attr& attr) const {
    It p = first;
    if (memo_prefix_parser::skip(p, last, ctx, rctx)) {  // memoised: the statement takes it from the memo
      const std::string_view word = detail::word_at(p, last, ctx);
      if (!word.empty()) {
        It next = p + word.size();
        x3::skip_over(next, last, ctx);
        const std::string_view rest(next, static_cast<std::size_t>(last - next));
        if (word == "memcpy" || word == "memset") {
          if (rest.starts_with('(') && detail::parse_as<ast::builtin_stmt>(builtin_stmt, first, last, ctx, rctx, attr))
            return true;
        } else if (!lexical::is_keyword(word)) {
          if (rest.starts_with("<<<") && detail::parse_as<ast::launch_stmt>(launch_stmt, first, last, ctx, rctx, attr))
            return true;
        } else if (keyword_statement(word, first, last, ctx, rctx, attr)) {
          return true;
        }
      } else if (p != last && *p == '{' && detail::parse_as<ast::block>(block, first, last, ctx, rctx, attr)) {
        return true;
      } else if (p == last || *p == '}') {
        // The end of a block (or of the text): every statement needs a word or a '{' after its
        // prefix, so each alternative would fail here, consuming nothing and throwing nothing,
        // after building and dropping its attribute (once per block: 19 of them).
        return false;
      }
    }
    return any_statement.parse(first, last, ctx, rctx, attr);
  }

private:
  // A statement that begins with a reserved word (after its prefix, if it takes one): every
  // alternative `any_statement` tries before it fails at that word without consuming anything
  // or throwing (the words of the statements before it are not reserved, and a launch needs a
  // name), so its rule alone gives the same tree and the same errors. False, consuming
  // nothing, when that rule fails: `any_statement` then tries everything, as before.
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  static bool keyword_statement(std::string_view word, It& first, It const& last, Ctx const& ctx, RCtx& rctx, Attr& attr) {
    using detail::parse_as;
    if (word == "let") return parse_as<ast::let_stmt>(let_stmt, first, last, ctx, rctx, attr);
    if (word == "cond") return parse_as<ast::cond_stmt>(cond_stmt, first, last, ctx, rctx, attr);
    if (word == "if") return parse_as<ast::if_stmt>(if_stmt, first, last, ctx, rctx, attr);
    if (word == "while") return parse_as<ast::while_stmt>(while_stmt, first, last, ctx, rctx, attr);
    if (word == "switch") return parse_as<ast::switch_stmt>(switch_stmt, first, last, ctx, rctx, attr);
    if (word == "repeat") return parse_as<ast::repeat_stmt>(repeat_stmt, first, last, ctx, rctx, attr);
    if (word == "host") return parse_as<ast::host_stmt>(host_stmt, first, last, ctx, rctx, attr);
    if (word == "call") return parse_as<ast::call_stmt>(call_stmt, first, last, ctx, rctx, attr);
    if (word == "for") return parse_as<ast::for_stmt>(for_stmt, first, last, ctx, rctx, attr);
    if (word == "parallel") {  // `parallel for …` or `parallel { … }`, tried in any_statement's order
      // for_stmt fails at once, consuming nothing, unless `for` follows: its attribute is made
      // only where it can succeed.
      It next = first;
      if (detail::word_at(next, last, ctx) == word) {  // no prefix before it (neither statement takes one)
        next += word.size();
        if (detail::word_at(next, last, ctx) != "for")
          return parse_as<ast::parallel_stmt>(parallel_stmt, first, last, ctx, rctx, attr);
      }
      return parse_as<ast::for_stmt>(for_stmt, first, last, ctx, rctx, attr) ||
             parse_as<ast::parallel_stmt>(parallel_stmt, first, last, ctx, rctx, attr);
    }
    return false;
  }
};

const auto statement_def = statement_parser{};

BOOST_SPIRIT_DEFINE(block, statement, node_prefix, attribute, attributes, after_clause, arguments, launch_stmt, builtin_stmt,
                    host_stmt, event_stmt, alloc_stmt, free_stmt, call_stmt, let_stmt, cond_stmt, if_stmt, else_if, while_stmt, case_clause,
                    switch_stmt, repeat_stmt, parallel_stmt, for_stmt, label_list, collective_stmt, group_stmt, device_stmt)

}  // namespace cgraph::dsl::parser

namespace cgraph::dsl {
const parser::block_type& block() { return parser::block; }
}  // namespace cgraph::dsl
