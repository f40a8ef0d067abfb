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

// X3 names literal strings "…"; diagnostics quote tokens as '…'.
std::string readable_expectation(std::string which);

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
    if (!state.has_error_in(at, at))
      state.error(at, at == last ? at : at + 1,
                  "expected " + expected + ", found " + describe_token(at, last));
    return x3::error_handler_result::fail;
  }
};

}  // namespace cgraph::dsl::parser
