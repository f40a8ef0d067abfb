#pragma once
// The rule-ID bases: every rule stamps its AST node with its byte range on success, and the
// statement and declaration rules turn an expectation failure into a diagnostic and fail, so
// recovery can skip to the next ';' or '}' and parsing goes on.

#include "lexical.hpp"
#include "parser_state.hpp"

#include <cgraph/dsl/ast.hpp>

#include <boost/spirit/home/x3.hpp>


#include <string>
#include <type_traits>

namespace cgraph::dsl::parser {

namespace x3 = boost::spirit::x3;

struct annotate_position {
  template <typename Iterator, typename Attribute, typename Context>
  void on_success(Iterator const& first, Iterator const& last, Attribute& node, Context const&) const {
    if constexpr (std::is_base_of_v<ast::tagged, Attribute>) {
      auto& state = *parser_state::current();
      node.begin = state.offset(first);
      node.end = state.offset(last);
    }
  }
};

// X3 calls on_success with an unused attribute for rules whose definition has semantic
// actions. Those rules stamp their node themselves: `mark_begin >> … >> mark_end`, two
// zero-width parsers that write the positions into the rule's attribute (X3's rcontext).
template <bool Begin>
struct position_marker : x3::parser<position_marker<Begin>> {
  using attribute_type = x3::unused_type;
  static bool const has_attribute = false;

  template <typename It, typename Ctx, typename RCtx, typename Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx& node, Attr&) const {
    if constexpr (std::is_base_of_v<ast::tagged, std::decay_t<RCtx>>) {
      auto& state = *parser_state::current();
      if constexpr (Begin) {
        x3::skip_over(first, last, ctx);
        node.begin = state.offset(first);
      } else {
        node.end = state.offset(first);
      }
    }
    return true;
  }
};
inline constexpr position_marker<true> mark_begin{};
inline constexpr position_marker<false> mark_end{};

// X3 names literal strings "…"; diagnostics quote tokens as '…'.
std::string readable_expectation(std::string which);

// A hint after "expected X, found Y" for the mistakes C and CUDA programmers make: a C type
// name, a misspelled statement keyword, `default` in a switch, a reserved word as a name.
// `at` is the offending token; empty when there is nothing to add.
std::string syntax_hint(const std::string& expected, const char* begin, const char* at, const char* last);

struct report_syntax_error : annotate_position {
  template <typename Iterator, typename Exception, typename Context>
  x3::error_handler_result on_error(Iterator&, Iterator const& last, Exception const& failure, Context const&) const {
    auto& state = *parser_state::current();
    std::string expected = readable_expectation(failure.which());
    // Point at the offending token; a missing ';' is reported where it belongs, right after
    // the previous token, as C++ compilers do.
    const char* at = lexical::skip_trivia(failure.where(), last);
    if (expected == "';'")
      while (at != state.begin && lexical::is_space(at[-1])) --at;
    // One syntax error per line: a later one on the line of an earlier one (`#include "k.cuh"`
    // then "expected ';'") is almost always a consequence of it.
    if (!state.line_has_error(at)) {
      diagnostic& d = state.error(at, at == last ? at : at + 1, "expected " + expected + ", found " +
                                                                     describe_token(at, last) +
                                                                     syntax_hint(expected, state.begin, at, last));
      if (expected == "'}'" && lexical::skip_trivia(at, last) == last) state.note_unclosed_braces(d);
    }
    state.failure_reported = true;
    return x3::error_handler_result::fail;
  }
};

}  // namespace cgraph::dsl::parser
