#pragma once
// Nesting that no bracket shows (docs/language.md, "Limits"): a `? :` in a branch of another,
// and an `else if`, which is an `if` inside the `else` before it. The pre-scan caps brackets at
// parse_limits::max_nesting; these recursed without a bound (20 000 chained `else if`, or
// `1 ? 2 : 1 ? 2 : …` 20 000 times, overflowed the stack), so they count levels of their own,
// capped at the same limit.

#include "parser_state.hpp"
#include "tokens.hpp"

#include <fmt/format.h>

namespace cgraph::dsl::parser {

// One level, held while the nested part is parsed. Past the limit: the error at [at, at_end),
// then an expectation failure, which the enclosing statement's or declaration's handler turns
// into recovery with no second message (its line has an error already).
class unbracketed_level {
public:
  unbracketed_level(const char* at, const char* at_end, const char* what) : state_(*parser_state::current()) {
    if (state_.unbracketed_depth >= state_.max_nesting) {
      state_.error(at, at_end, fmt::format("{} nest deeper than the limit of {} levels", what, state_.max_nesting));
      detail::expected(at, what);
    }
    ++state_.unbracketed_depth;
  }
  ~unbracketed_level() { --state_.unbracketed_depth; }
  unbracketed_level(const unbracketed_level&) = delete;
  unbracketed_level& operator=(const unbracketed_level&) = delete;

private:
  parser_state& state_;
};

}  // namespace cgraph::dsl::parser
