#include "error_handler.hpp"
#include "lexical.hpp"
#include "parser_state.hpp"

#include <algorithm>

namespace cgraph::dsl::parser {

parser_state*& parser_state::current() {
  thread_local parser_state* state = nullptr;
  return state;
}

bool parser_state::has_error_in(const char* from, const char* to) const {
  std::uint32_t lo = offset(from), hi = offset(to);
  // Errors are reported in increasing position, so the newest are at the back.
  for (auto it = syntax_errors.rbegin(); it != syntax_errors.rend(); ++it) {
    if (*it < lo) return false;
    if (*it <= hi) return true;
  }
  return false;
}

std::string describe_token(const char* p, const char* end) {
  p = lexical::skip_trivia(p, end);
  if (p == end) return "end of file";
  if (lexical::is_ident_char(*p)) {
    const char* q = p;
    while (q != end && lexical::is_ident_char(*q)) ++q;
    return "'" + std::string(p, q) + "'";
  }
  for (std::string_view multi : {"<<<", ">>>", "<<", ">>", "//", "/*"})
    if (static_cast<std::size_t>(end - p) >= multi.size() && std::string_view(p, multi.size()) == multi)
      return multi[0] == '/' ? "a comment" : "'" + std::string(multi) + "'";
  if (*p == '"') return "a string";
  return "'" + std::string(1, *p) + "'";
}

std::string readable_expectation(std::string which) {
  if (which.size() >= 2 && which.front() == '"' && which.back() == '"') {
    which.front() = '\'';
    which.back() = '\'';
  }
  return which;
}

}  // namespace cgraph::dsl::parser
