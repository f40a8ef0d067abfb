#pragma once
// Hand-written X3 primitive parsers for the tokens: identifiers (with the keyword check),
// keywords, numbers, strings, types and binary operators. Written by hand because each is a
// few lines of scanning, and the generic X3 compositions for them cost several times more.

#include "lexical.hpp"
#include "parser_state.hpp"

#include <cgraph/dsl/ast.hpp>
#include <cgraph/dsl/collectives.hpp>

#include <boost/spirit/home/x3.hpp>


#include <charconv>
#include <limits>
#include <system_error>
#include <string>
#include <string_view>
#include <utility>

namespace cgraph::dsl::parser {

namespace x3 = boost::spirit::x3;

namespace detail {

inline void tag(ast::tagged& node, const char* from, const char* to) {
  auto& state = *parser_state::current();
  node.begin = state.offset(from);
  node.end = state.offset(to);
}

// The base of the hand-written X3 parsers (tokens here; expressions, launch dimensions and
// argument lists in the grammar files): the attribute they produce.
template <typename Derived, typename Attribute>
struct token_parser : x3::parser<Derived> {
  using attribute_type = Attribute;
  static bool const has_attribute = !std::is_same_v<Attribute, x3::unused_type>;
};

}  // namespace detail

// Succeeds, consuming nothing, where a word ends: the next byte cannot continue an identifier.
// Not X3's alnum: it hands a non-ASCII byte, negative as a char, to std::isalnum, which is
// undefined behaviour and an assertion failure in builds with assertions (found by replaying
// the fuzz corpus in the Debug sanitizer build).
struct word_end_parser : detail::token_parser<word_end_parser, x3::unused_type> {
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const&, RCtx&, Attr&) const {
    return first == last || !lexical::is_ident_char(*first);
  }
};

namespace detail {
// Skips trivia, then the word [A-Za-z_][A-Za-z0-9_]* at `first` (not consumed), or "" if none.
template <typename It, typename Ctx>
std::string_view word_at(It& first, It const& last, Ctx const& ctx) {
  x3::skip_over(first, last, ctx);
  if (first == last || !lexical::is_alpha(*first)) return {};
  return {first, static_cast<std::size_t>(lexical::scan_word(first, last) - first)};
}

// Moves a name into an operand (names are most operands). boost::variant's assignment from a
// kind other than the one held moves the value into a temporary variant first, then that into
// place; this replaces the operand by one made from the identifier, one move. Nothing between
// the destruction and the construction can throw (the identifier's move is noexcept, and the
// variant's converting constructor only moves it into its storage), so the operand is never
// left destroyed.
inline void put(ast::operand& v, ast::identifier&& id) {
  static_assert(std::is_nothrow_move_constructible_v<ast::identifier>);
  if (ast::identifier* same = boost::get<ast::identifier>(&v)) {
    *same = std::move(id);
  } else {
    v.~operand();
    ::new (static_cast<void*>(&v)) ast::operand(std::move(id));
  }
}

// Runs `p` into a fresh Node and moves it into `attr` (a variant holding Node) on success; on
// failure `first` is back where it was. For parsers that pick one alternative of a variant
// themselves (primary_parser, statement_parser) instead of trying each in turn.
template <typename Node, typename P, typename It, typename Ctx, typename RCtx, typename Attr>
bool parse_as(const P& p, It& first, It const& last, Ctx const& ctx, RCtx& rctx, Attr& attr) {
  Node node;
  const It start = first;
  if (!p.parse(first, last, ctx, rctx, node)) {
    first = start;
    return false;
  }
  attr = std::move(node);
  return true;
}
}  // namespace detail

namespace detail {
// What a hand-written parser throws where an X3 `>` would: the same failure, at `where`,
// naming what was expected (x3::what of the parser that failed).
template <typename It>
[[noreturn]] void expected(It where, std::string which) {
  boost::throw_exception(x3::expectation_failure<It>(where, std::move(which)));
}

// Takes `word` (found by word_at at `first`, not a keyword) as an identifier into `attr`.
template <typename It, typename Attr>
void take_identifier(std::string_view word, It& first, Attr& attr) {
  const char* end = first + word.size();
  ast::identifier id;
  id.name = word;
  tag(id, first, end);
  if constexpr (std::is_same_v<Attr, ast::operand>) put(attr, std::move(id));
  else x3::traits::move_to(std::move(id), attr);
  first = end;
}
}  // namespace detail

// [A-Za-z_][A-Za-z0-9_]* that is not a keyword.
struct identifier_parser : detail::token_parser<identifier_parser, ast::identifier> {
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
    const std::string_view word = detail::word_at(first, last, ctx);
    if (word.empty() || lexical::is_keyword(word)) return false;
    detail::take_identifier(word, first, attr);
    return true;
  }
};

// One entry of an `after` list: `L`, or `programmatic(L)` / `launched(L)` (a programmatic
// dependent launch edge from L's programmatic or launch-completion port). The two words are not
// reserved: followed by anything but '(' they are labels.
struct after_label_parser : detail::token_parser<after_label_parser, ast::after_label> {
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx& rctx, Attr& attr) const {
    It p = first;
    ast::after_label id;
    if (!identifier_parser{}.parse(p, last, ctx, rctx, static_cast<ast::identifier&>(id))) return false;
    ast::edge_port port = id.name == "programmatic" ? ast::edge_port::programmatic
                          : id.name == "launched"   ? ast::edge_port::launched
                                                    : ast::edge_port::full;
    if (port != ast::edge_port::full) {
      It q = p;
      x3::skip_over(q, last, ctx);
      if (q != last && *q == '(') {
        ++q;
        ast::after_label inner;
        if (!identifier_parser{}.parse(q, last, ctx, rctx, static_cast<ast::identifier&>(inner))) return false;
        x3::skip_over(q, last, ctx);
        if (q == last || *q != ')') return false;
        inner.port = port;
        detail::tag(inner, first, q + 1);
        inner.begin = id.begin;  // the whole `programmatic(L)`
        id = std::move(inner);
        p = q + 1;
      }
    }
    x3::traits::move_to(std::move(id), attr);
    first = p;
    return true;
  }
};

// The name of a struct (declared anywhere in the file) followed by '{': the start of a struct
// literal. Other names never start one, so `repeat n { … }` stays a count and a block.
struct struct_name_parser : detail::token_parser<struct_name_parser, ast::identifier> {
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx& rctx, Attr& attr) const {
    It p = first;
    ast::identifier id;
    if (!identifier_parser{}.parse(p, last, ctx, rctx, id) || !parser_state::current()->is_struct_name(id.name))
      return false;
    x3::skip_over(p, last, ctx);
    if (p == last || *p != '{') return false;
    x3::traits::move_to(std::move(id), attr);
    first = p;
    return true;
  }
};

// `NAME:` before a node statement. One primitive, so a name that turns out not to be a label
// leaves nothing behind in the attribute when the parser backtracks. Tried before every
// statement, and nearly always fails: the ':' is looked for before the name is taken.
struct label_parser : detail::token_parser<label_parser, ast::identifier> {
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
    It name = first;
    const std::string_view word = detail::word_at(name, last, ctx);
    if (word.empty() || lexical::is_keyword(word)) return false;
    It p = name + word.size();
    x3::skip_over(p, last, ctx);
    if (p == last || *p != ':') return false;
    ast::identifier id;
    detail::take_identifier(word, name, id);
    x3::traits::move_to(std::move(id), attr);
    first = p + 1;
    return true;
  }
};

// A reserved word, not followed by an identifier character.
struct keyword_parser : detail::token_parser<keyword_parser, x3::unused_type> {
  constexpr explicit keyword_parser(std::string_view w) : word(w) {}
  std::string_view word;

  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr&) const {
    x3::skip_over(first, last, ctx);
    if (static_cast<std::size_t>(last - first) < word.size() ||
        std::string_view(first, word.size()) != word)
      return false;
    const char* end = first + word.size();
    if (end != last && lexical::is_ident_char(*end)) return false;
    first = end;
    return true;
  }
};

inline keyword_parser kw(std::string_view word) { return keyword_parser(word); }

namespace detail {
// A token that is one of a few keywords, as a tagged AST node: `choices` pairs each keyword with
// what it sets in the node (`memcpy`/`memset`, `true`/`false`, `null`).
template <typename Node, typename It, typename Ctx, typename RCtx, typename Attr, typename... Set>
bool keyword_node(It& first, It const& last, Ctx const& ctx, RCtx& rctx, Attr& attr,
                  std::pair<std::string_view, Set>... choices) {
  x3::skip_over(first, last, ctx);
  const char* start = first;
  Node node;
  x3::unused_type none;
  bool matched = (... || (kw(choices.first).parse(first, last, ctx, rctx, none) && (choices.second(node), true)));
  if (!matched) return false;
  tag(node, start, first);
  x3::traits::move_to(std::move(node), attr);
  return true;
}
}  // namespace detail

// A punctuation sequence such as "<<<"; unlike x3::lit it reports itself as '<<<'.
struct punct_parser : detail::token_parser<punct_parser, x3::unused_type> {
  constexpr explicit punct_parser(std::string_view t) : text(t) {}
  std::string_view text;

  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr&) const {
    x3::skip_over(first, last, ctx);
    if (static_cast<std::size_t>(last - first) < text.size() ||
        std::string_view(first, text.size()) != text)
      return false;
    first += text.size();
    return true;
  }
};

inline punct_parser punct(std::string_view text) { return punct_parser(text); }

// A collective's name (collectives table) followed by '(': the words are not reserved, so
// `reduce<<<…>>>(…)` stays a launch of a kernel named reduce.
struct collective_keyword_parser : detail::token_parser<collective_keyword_parser, ast::collective_keyword> {
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
    const std::string_view word = detail::word_at(first, last, ctx);
    const char* end = first + word.size();
    for (const auto& c : collectives) {
      if (c.name != word) continue;
      It p = end;
      x3::skip_over(p, last, ctx);
      if (p == last || *p != '(') return false;
      ast::collective_keyword k;
      k.op = c.op;
      detail::tag(k, first, end);
      x3::traits::move_to(std::move(k), attr);
      first = end;
      return true;
    }
    return false;
  }
};

// `memcpy` or `memset`, with its position (arity errors point at it).
struct builtin_keyword_parser : detail::token_parser<builtin_keyword_parser, ast::builtin_keyword> {
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx& rctx, Attr& attr) const {
    using node = ast::builtin_keyword;
    return detail::keyword_node<node>(
        first, last, ctx, rctx, attr,
        std::pair{std::string_view("memcpy"), [](node& k) { k.op = ast::builtin_op::memcpy_op; }},
        std::pair{std::string_view("memset"), [](node& k) { k.op = ast::builtin_op::memset_op; }});
  }
};

// Integer literals: 123, 0x7f, 0b101, with '_' between digits.
struct int_parser : detail::token_parser<int_parser, ast::int_literal> {
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
    x3::skip_over(first, last, ctx);
    const char* p = first;
    if (p == last || !lexical::is_digit(*p)) return false;
    unsigned base = 10;
    if (*p == '0' && last - p > 2 && (p[1] == 'x' || p[1] == 'X' || p[1] == 'b' || p[1] == 'B')) {
      base = (p[1] == 'x' || p[1] == 'X') ? 16 : 2;
      if (digit_value(p[2], base) < 0) return false;
      p += 2;
    }
    ast::int_literal lit;
    bool need_digit = true;  // no leading, trailing or doubled '_'
    for (; p != last; ++p) {
      if (*p == '_' && !need_digit) { need_digit = true; continue; }
      int d = digit_value(*p, base);
      if (d < 0) break;
      need_digit = false;
      if (lit.value > (~std::uint64_t{0} - static_cast<unsigned>(d)) / base) lit.too_large = true;
      lit.value = lit.value * base + static_cast<unsigned>(d);
    }
    if (need_digit) --p;  // a trailing '_' is not part of the literal
    detail::tag(lit, first, p);
    x3::traits::move_to(std::move(lit), attr);
    first = p;
    return true;
  }

  static int digit_value(char c, unsigned base) {
    int d = c >= '0' && c <= '9' ? c - '0'
          : c >= 'a' && c <= 'f' ? c - 'a' + 10
          : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    return d >= 0 && static_cast<unsigned>(d) < base ? d : -1;
  }
};

// Float literals: 1.0, .5, 1e-3, 2.5e+4 (a '.' followed by a digit, or an exponent).
struct float_parser : detail::token_parser<float_parser, ast::float_literal> {
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
    x3::skip_over(first, last, ctx);
    const char* p = first;
    auto digits = [&] { const char* s = p; while (p != last && lexical::is_digit(*p)) ++p; return p != s; };
    bool whole = digits();
    bool fraction = false;
    if (p != last && *p == '.' && p + 1 != last && lexical::is_digit(p[1])) { ++p; fraction = digits(); }
    if (!whole && !fraction) return false;
    bool exponent = false;
    if (p != last && (*p == 'e' || *p == 'E')) {
      const char* q = p + 1;
      if (q != last && (*q == '+' || *q == '-')) ++q;
      if (q != last && lexical::is_digit(*q)) { p = q; digits(); exponent = true; }
    }
    if (!fraction && !exponent) return false;
    ast::float_literal lit;
    // Too large or too small for a double: from_chars leaves the value as it was (0.0, which
    // read as the literal's value once), so it is made infinite, which lowering reports as out
    // of range.
    if (std::from_chars(first, p, lit.value).ec == std::errc::result_out_of_range)
      lit.value = std::numeric_limits<double>::infinity();
    detail::tag(lit, first, p);
    x3::traits::move_to(std::move(lit), attr);
    first = p;
    return true;
  }
};

struct null_parser : detail::token_parser<null_parser, ast::null_literal> {
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx& rctx, Attr& attr) const {
    return detail::keyword_node<ast::null_literal>(first, last, ctx, rctx, attr,
                                                   std::pair{std::string_view("null"), [](ast::null_literal&) {}});
  }
};

struct bool_parser : detail::token_parser<bool_parser, ast::bool_literal> {
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx& rctx, Attr& attr) const {
    using node = ast::bool_literal;
    return detail::keyword_node<node>(first, last, ctx, rctx, attr,
                                      std::pair{std::string_view("true"), [](node& b) { b.value = true; }},
                                      std::pair{std::string_view("false"), [](node& b) { b.value = false; }});
  }
};

// "…" with \" \\ \n \t escapes, or """…""" taken as is. A bad escape is reported and kept.
struct string_parser : detail::token_parser<string_parser, ast::string_literal> {
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
    x3::skip_over(first, last, ctx);
    if (first == last || *first != '"') return false;
    const char* end = lexical::skip_string(first, last);
    if (!end) return false;  // reported by the pre-scan
    ast::string_literal lit;
    if (end - first >= 6 && first[1] == '"' && first[2] == '"') {
      lit.raw = true;
      lit.value.assign(first + 3, end - 3);
    } else {
      for (const char* p = first + 1; p < end - 1; ++p) {
        if (*p != '\\') { lit.value += *p; continue; }
        ++p;
        switch (*p) {
          case '"': lit.value += '"'; break;
          case '\\': lit.value += '\\'; break;
          case 'n': lit.value += '\n'; break;
          case 't': lit.value += '\t'; break;
          default:
            parser_state::current()->error(p - 1, p + 1, std::string("unknown escape sequence '\\") + *p +
                                                             "' (use \\\", \\\\, \\n or \\t)");
            lit.value += *p;
        }
      }
    }
    detail::tag(lit, first, end);
    x3::traits::move_to(std::move(lit), attr);
    first = end;
    return true;
  }
};

// i8 … f64, f16, bf16, bool, void, cond or a struct's name, optionally followed by '*', and
// optionally preceded by `const` (which the checker allows on pointers only).
struct type_parser : detail::token_parser<type_parser, ast::type_name> {
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
    x3::skip_over(first, last, ctx);
    if (first == last || !lexical::is_alpha(*first)) return false;
    ast::type_name type;
    const char* start = first;
    const char* end = lexical::scan_word(first, last);
    std::string_view word(start, static_cast<std::size_t>(end - start));
    if (word == "const") {
      type.is_const = true;
      const char* p = end;
      x3::skip_over(p, last, ctx);
      if (p == last || !lexical::is_alpha(*p)) return false;
      end = lexical::scan_word(p, last);
      word = std::string_view(p, static_cast<std::size_t>(end - p));
    }
    static constexpr std::string_view names[] = {"i8",  "i16", "i32",  "i64",  "u8",   "u16",  "u32",   "u64", "f32",
                                                 "f64", "f16", "bf16", "bool", "void", "cond", "event", "comm"};
    if (std::find(std::begin(names), std::end(names), word) == std::end(names) &&
        !parser_state::current()->is_struct_name(word))
      return false;
    type.base = word;
    const char* p = end;
    x3::skip_over(p, last, ctx);
    if (p != last && *p == '*') { type.pointer = true; end = p + 1; }
    detail::tag(type, start, end);
    x3::traits::move_to(std::move(type), attr);
    first = end;
    return true;
  }
};

// An infix operator of the table in cgraph/dsl/operators.hpp (`<<<` and `>>>` are not).
struct binary_op_parser : detail::token_parser<binary_op_parser, ast::binary_op> {
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
    x3::skip_over(first, last, ctx);
    // A comment was skipped already, so a '/' here is division.
    if (first == last || !dsl::may_start_infix(*first)) return false;
    auto op = dsl::match_infix(std::string_view(first, static_cast<std::size_t>(last - first)));
    if (!op) return false;
    x3::traits::move_to(*op, attr);
    first += dsl::info(*op).spelling.size();
    return true;
  }
};

// The unary signs `-` and `!` before an operand, as written (zero or more; always succeeds).
// A `!` followed by `=` is the operator `!=`, not a sign.
struct prefix_parser : detail::token_parser<prefix_parser, ast::list<char>> {
  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
    ast::list<char> signs;
    for (;;) {
      It p = first;
      x3::skip_over(p, last, ctx);
      if (p == last || (*p != '-' && *p != '!') || (*p == '!' && p + 1 != last && p[1] == '=')) break;
      signs.push_back(*p);
      first = p + 1;
    }
    x3::traits::move_to(std::move(signs), attr);
    return true;
  }
};

// Error recovery: after a statement (or declaration) failed, skip to the next ';' or past the
// next balanced '}' (and a following `else { … }`), stopping before a '}' that closes the
// enclosing block. Reports "expected a statement" unless the failure was already reported.
struct recover_parser : detail::token_parser<recover_parser, x3::unused_type> {
  constexpr explicit recover_parser(bool top) : top_level(top) {}
  bool top_level;

  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr&) const {
    x3::skip_over(first, last, ctx);
    if (first == last || (!top_level && *first == '}')) return false;
    const char* p = skip_to_sync(first, last, ctx);
    if (top_level) p = std::min(p, next_declaration(first, p));
    auto& state = *parser_state::current();
    if (!state.failure_reported && !state.has_error_in(first, p)) {
      const char* token_end = lexical::is_ident_char(*first) ? lexical::scan_word(first, last) : first + 1;
      state.error(first, token_end,
                  std::string("expected ") + (top_level ? "a declaration" : "a statement") +
                      ", found " + describe_token(first, last));
    }
    state.failure_reported = false;
    first = p;
    return true;
  }

  // The first declaration keyword at the start of a line in (from, to), or `to`: a top-level
  // declaration that lost its ';' (or its '}') does not take the declarations after it along,
  // so their errors are reported too.
  static const char* next_declaration(const char* from, const char* to) {
    static constexpr std::string_view keywords[] = {"kernel", "host",   "graph", "include", "import",
                                                    "module", "source", "const", "struct"};
    for (const char* p = from + 1; p < to; ++p) {
      if (p[-1] != '\n' || !lexical::is_alpha(*p)) continue;
      std::string_view word(p, static_cast<std::size_t>(lexical::scan_word(p, to) - p));
      if (std::find(std::begin(keywords), std::end(keywords), word) != std::end(keywords)) return p;
    }
    return to;
  }

  template <typename Ctx>
  const char* skip_to_sync(const char* p, const char* last, Ctx const& ctx) const {
    int depth = 0;
    while (p < last) {
      char c = *p;
      if (c == '"') {
        const char* q = lexical::skip_string(p, last);
        p = q ? q : last;
        continue;
      }
      if (c == '/' && last - p >= 2 && (p[1] == '/' || p[1] == '*')) {
        const char* q = p[1] == '/' ? lexical::skip_line_comment(p, last) : lexical::skip_block_comment(p, last);
        p = q ? q : last;
        continue;
      }
      ++p;
      if (c == ';' && depth == 0) return p;
      if (c == '{') ++depth;
      if (c == '}') {
        if (depth == 0) return top_level ? p : p - 1;
        if (--depth == 0) {
          const char* q = p;
          x3::skip_over(q, last, ctx);
          if (!(last - q >= 4 && std::string_view(q, 4) == "else" &&
                (last - q == 4 || !lexical::is_ident_char(q[4]))))
            return p;
        }
      }
    }
    return p;
  }
};

}  // namespace cgraph::dsl::parser

namespace boost::spirit::x3 {

template <>
struct get_info<cgraph::dsl::parser::keyword_parser> {
  using result_type = std::string;
  std::string operator()(cgraph::dsl::parser::keyword_parser const& p) const { return "'" + std::string(p.word) + "'"; }
};

template <>
struct get_info<cgraph::dsl::parser::punct_parser> {
  using result_type = std::string;
  std::string operator()(cgraph::dsl::parser::punct_parser const& p) const { return "'" + std::string(p.text) + "'"; }
};

// X3 describes a parser it has no name for by its C++ type, which readable_expectation turns
// into "more input": "expected more input, found ';'" after `include`. The composites the
// grammar puts after a `>` are named by what they hold instead: a rule with an action by its
// rule ("expected string"), a list by its element ("expected an attribute"), a choice by its
// alternatives ("expected 'if' or '{'").
template <typename Subject, typename Action>
struct get_info<action<Subject, Action>> {
  using result_type = std::string;
  std::string operator()(action<Subject, Action> const& p) const { return what(p.subject); }
};

template <typename Left, typename Right>
struct get_info<list<Left, Right>> {
  using result_type = std::string;
  std::string operator()(list<Left, Right> const& p) const { return what(p.left); }
};

template <typename Left, typename Right>
struct get_info<alternative<Left, Right>> {
  using result_type = std::string;
  std::string operator()(alternative<Left, Right> const& p) const { return what(p.left) + " or " + what(p.right); }
};

}  // namespace boost::spirit::x3
