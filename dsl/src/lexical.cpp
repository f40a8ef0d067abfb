#include "lexical.hpp"

#include <algorithm>
#include <array>
#include <cstring>

namespace cgraph::dsl::lexical {

bool is_keyword(std::string_view word) {
  // Most identifiers are rejected by length or first letter before any comparison.
  if (word.size() < 2 || word.size() > 8) return false;
  switch (word[0]) {
    case 'a': case 'c': case 'e': case 'f': case 'g': case 'h': case 'i': case 'k':
    case 'l': case 'm': case 'n': case 'p': case 'r': case 's': case 't': case 'w':
      break;
    default:
      return false;
  }
  static constexpr std::array<std::string_view, 28> keywords = {  // sorted
      "after",  "as",     "call",     "case",   "cond",   "const",  "else",   "false",  "for",    "from",
      "graph",  "host",   "if",       "include", "kernel", "let",   "memcpy", "memset", "module",
      "null",   "parallel", "repeat", "sizeof", "source", "struct", "switch", "true",   "while"};
  return std::binary_search(keywords.begin(), keywords.end(), word);
}

const char* skip_block_comment(const char* p, const char* end) {
  for (p += 2; p + 1 < end; ++p)
    if (p[0] == '*' && p[1] == '/') return p + 2;
  return nullptr;
}

const char* skip_line_comment(const char* p, const char* end) {
  const void* nl = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
  return nl ? static_cast<const char*>(nl) : end;
}

const char* skip_string(const char* p, const char* end) {
  if (end - p >= 3 && p[1] == '"' && p[2] == '"') {  // raw string
    for (p += 3; p + 2 < end; ++p)
      if (p[0] == '"' && p[1] == '"' && p[2] == '"') return p + 3;
    return nullptr;
  }
  for (++p; p < end; ++p) {
    if (*p == '\\' && p + 1 < end && p[1] != '\n') ++p;
    else if (*p == '"') return p + 1;
    else if (*p == '\n') return nullptr;
  }
  return nullptr;
}

const char* skip_trivia(const char* p, const char* end) {
  while (p != end) {
    if (is_space(*p)) {
      ++p;
    } else if (*p == '/' && end - p >= 2 && (p[1] == '/' || p[1] == '*')) {
      const char* q = p[1] == '/' ? skip_line_comment(p, end) : skip_block_comment(p, end);
      p = q ? q : end;
    } else {
      break;
    }
  }
  return p;
}

}  // namespace cgraph::dsl::lexical
